//! case: content-hashing service (cudarc driver sys layer) configuring a __constant__ module global found with cuModuleGetGlobal_v2 through cuMemcpyHtoD_v2 (blocking copies and the kernel all on the legacy default stream); shutdown frees only its cuMemAlloc'd buffers and leaves the global to cuModuleUnload (near-miss)
//! expect: none

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};

const HASH_SRC: &str = r#"
struct HashConfig { unsigned long long seed; unsigned rounds; unsigned block; };
__constant__ HashConfig d_cfg;
extern "C" __global__ void block_hash(const unsigned char* data, unsigned n, unsigned long long* out) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned start = b * d_cfg.block;
    if (start >= n) return;
    unsigned long long h = d_cfg.seed;
    for (unsigned r = 0; r < d_cfg.rounds; ++r)
        for (unsigned i = start; i < min(start + d_cfg.block, n); ++i) h = (h ^ data[i]) * 0x100000001b3ull;
    out[b] = h;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct HashConfig {
    seed: u64,
    rounds: u32,
    block: u32,
}

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct BlockHasher {
    module: CUmodule,
    kernel: CUfunction,
    cfg_global: CUdeviceptr,
    d_data: CUdeviceptr,
    d_out: CUdeviceptr,
    capacity: usize,
    block: u32,
}

impl BlockHasher {
    pub fn new(capacity: usize, seed: u64, block: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(HASH_SRC)?.to_src())?;
        let cfg = HashConfig { seed, rounds: 2, block };
        let (mut module, mut kernel): (CUmodule, CUfunction) = (std::ptr::null_mut(), std::ptr::null_mut());
        let (mut cfg_global, mut cfg_bytes, mut d_data, mut d_out) = (0u64, 0usize, 0u64, 0u64);
        let e = |r: CUresult| format!("{r:?}");
        unsafe {
            ok(sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void)).map_err(e)?;
            ok(sys::cuModuleGetFunction(&mut kernel, module, c"block_hash".as_ptr())).map_err(e)?;
            ok(sys::cuModuleGetGlobal_v2(&mut cfg_global, &mut cfg_bytes, module, c"d_cfg".as_ptr())).map_err(e)?;
            ok(sys::cuMemcpyHtoD_v2(cfg_global, &cfg as *const HashConfig as *const c_void, std::mem::size_of::<HashConfig>().min(cfg_bytes))).map_err(e)?;
            ok(sys::cuMemAlloc_v2(&mut d_data, capacity)).map_err(e)?;
            ok(sys::cuMemAlloc_v2(&mut d_out, capacity.div_ceil(block as usize) * 8)).map_err(e)?;
        }
        Ok(BlockHasher { module, kernel, cfg_global, d_data, d_out, capacity, block })
    }

    /// Hashes `data` in blocks; returns one 64-bit hash per block.
    pub fn hash(&self, data: &[u8]) -> Result<Vec<u64>, CUresult> {
        // Everything runs on the legacy default stream, in order with the blocking copies.
        let legacy: CUstream = std::ptr::null_mut();
        let n = data.len().min(self.capacity);
        let blocks = n.div_ceil(self.block as usize);
        let mut out = vec![0u64; blocks];
        unsafe {
            ok(sys::cuMemcpyHtoD_v2(self.d_data, data.as_ptr() as *const c_void, n))?;
            let (mut d, mut nn, mut o) = (self.d_data, n as u32, self.d_out);
            let mut params = [&mut d as *mut _ as *mut c_void, &mut nn as *mut _ as *mut c_void, &mut o as *mut _ as *mut c_void];
            ok(sys::cuLaunchKernel(self.kernel, (blocks as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, legacy, params.as_mut_ptr(), std::ptr::null_mut()))?;
            ok(sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, self.d_out, blocks * 8))?;
        }
        Ok(out)
    }

    /// Changes the seed of subsequent hashes (`hash` has returned, so no kernel is running).
    pub fn reseed(&self, seed: u64) -> Result<(), CUresult> {
        let cfg = HashConfig { seed, rounds: 2, block: self.block };
        unsafe { ok(sys::cuMemcpyHtoD_v2(self.cfg_global, &cfg as *const HashConfig as *const c_void, std::mem::size_of::<HashConfig>())) }
    }
}

impl Drop for BlockHasher {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.d_data);
            sys::cuMemFree_v2(self.d_out);
            // d_cfg belongs to the module and goes with it.
            sys::cuModuleUnload(self.module);
        }
    }
}
