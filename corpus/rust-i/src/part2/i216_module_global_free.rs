//! case: AES-CTR encryption service (cudarc driver sys layer): the S-box lives in a __constant__ module global located with cuModuleGetGlobal_v2; the key-schedule buffers are cuMemAlloc'd and freed with cuMemFree_v2, but the shutdown path also passes the S-box global to cuMemFree_v2
//! expect: mismatched_free=1

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};

const AES_SRC: &str = r#"
__constant__ unsigned char d_sbox[256];
extern "C" __global__ void ctr_xor(const unsigned char* round_keys, unsigned long long nonce,
                                   unsigned char* data, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned long long ctr = nonce + (i / 16);
    unsigned char ks = d_sbox[(unsigned char)(ctr >> ((i % 8) * 8)) ^ round_keys[i % 176]];
    data[i] ^= ks;
}
"#;

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct AesCtrEngine {
    module: CUmodule,
    kernel: CUfunction,
    sbox: CUdeviceptr,
    round_keys: CUdeviceptr,
    scratch: CUdeviceptr,
    scratch_len: usize,
}

pub fn forward_sbox() -> [u8; 256] {
    // Placeholder affine permutation; the real table is generated at build time.
    let mut s = [0u8; 256];
    for (i, v) in s.iter_mut().enumerate() {
        *v = (i as u8).wrapping_mul(7).wrapping_add(0x63).rotate_left(3);
    }
    s
}

impl AesCtrEngine {
    /// The caller's context must be current on this thread.
    pub fn new(round_keys: &[u8; 176], scratch_len: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = compile_ptx(AES_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut module: CUmodule = std::ptr::null_mut();
        let mut kernel: CUfunction = std::ptr::null_mut();
        let mut sbox: CUdeviceptr = 0;
        let mut sbox_bytes = 0usize;
        let mut keys: CUdeviceptr = 0;
        let mut scratch: CUdeviceptr = 0;
        let table = forward_sbox();
        unsafe {
            ok(sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuModuleGetFunction(&mut kernel, module, c"ctr_xor".as_ptr())).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuModuleGetGlobal_v2(&mut sbox, &mut sbox_bytes, module, c"d_sbox".as_ptr())).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuMemcpyHtoD_v2(sbox, table.as_ptr() as *const c_void, sbox_bytes.min(256))).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuMemAlloc_v2(&mut keys, 176)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuMemcpyHtoD_v2(keys, round_keys.as_ptr() as *const c_void, 176)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuMemAlloc_v2(&mut scratch, scratch_len)).map_err(|e| format!("{e:?}"))?;
            // Blocking copies from pageable memory may return before the DMA lands.
            ok(sys::cuCtxSynchronize()).map_err(|e| format!("{e:?}"))?;
        }
        Ok(AesCtrEngine { module, kernel, sbox, round_keys: keys, scratch, scratch_len })
    }

    /// Encrypts `len` bytes already in `self.scratch` in place.
    pub fn encrypt_scratch(&self, nonce: u64, len: usize, stream: CUstream) -> Result<(), CUresult> {
        let mut keys = self.round_keys;
        let mut nonce = nonce;
        let mut data = self.scratch;
        let mut n = len.min(self.scratch_len) as u32;
        let mut params: [*mut c_void; 4] = [
            &mut keys as *mut _ as *mut c_void,
            &mut nonce as *mut _ as *mut c_void,
            &mut data as *mut _ as *mut c_void,
            &mut n as *mut _ as *mut c_void,
        ];
        unsafe {
            ok(sys::cuLaunchKernel(self.kernel, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(sys::cuStreamSynchronize(stream))
        }
    }

    pub fn shutdown(self) {
        unsafe {
            for ptr in [self.round_keys, self.scratch] {
                sys::cuMemFree_v2(ptr);
            }
            // Zeroize and drop the key material table too.
            sys::cuMemsetD8_v2(self.sbox, 0, 256);
            sys::cuMemFree_v2(self.sbox); // EXPECT: mismatched_free
            sys::cuModuleUnload(self.module);
        }
    }
}
