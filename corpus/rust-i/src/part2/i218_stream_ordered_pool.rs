//! case: per-request scratch memory for a recommendation server (driver sys layer, stream-ordered allocator): scratch is cuMemAllocAsync'd on the compute stream and used by the scoring kernel there, but returned with cuMemFreeAsync on a separate cleanup stream that never waits for the compute stream
//! expect: missing_sync=1

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUresult, CUstream, CUstream_flags};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{c_void, CString};

const SCORE_SRC: &str = r#"
extern "C" __global__ void dot_scores(const float* user, const float* items, unsigned dim,
                                      unsigned n_items, float* scratch, float* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_items) return;
    float s = 0.0f;
    for (unsigned d = 0; d < dim; ++d) { float p = user[d] * items[i * dim + d]; scratch[i * dim + d] = p; s += p; }
    out[i] = s;
}
"#;

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Scorer {
    module: CUmodule,
    kernel: CUfunction,
    compute: CUstream,
    cleanup: CUstream,
}

impl Scorer {
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(SCORE_SRC)?.to_src())?;
        let mut module: CUmodule = std::ptr::null_mut();
        let mut kernel: CUfunction = std::ptr::null_mut();
        let mut compute: CUstream = std::ptr::null_mut();
        let mut cleanup: CUstream = std::ptr::null_mut();
        unsafe {
            ok(sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuModuleGetFunction(&mut kernel, module, c"dot_scores".as_ptr())).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuStreamCreate(&mut compute, CUstream_flags::CU_STREAM_NON_BLOCKING as u32)).map_err(|e| format!("{e:?}"))?;
            ok(sys::cuStreamCreate(&mut cleanup, CUstream_flags::CU_STREAM_NON_BLOCKING as u32)).map_err(|e| format!("{e:?}"))?;
        }
        Ok(Scorer { module, kernel, compute, cleanup })
    }

    /// Scores `n_items` items into `out` (device). Returns once the work is enqueued.
    pub fn score(&self, user: CUdeviceptr, items: CUdeviceptr, dim: u32, n_items: u32, out: CUdeviceptr) -> Result<(), CUresult> {
        let scratch_bytes = n_items as usize * dim as usize * 4;
        let mut scratch: CUdeviceptr = 0;
        unsafe {
            ok(sys::cuMemAllocAsync(&mut scratch, scratch_bytes, self.compute))?;
            let (mut u, mut it, mut d, mut n, mut s, mut o) = (user, items, dim, n_items, scratch, out);
            let mut params: [*mut c_void; 6] = [
                &mut u as *mut _ as *mut c_void,
                &mut it as *mut _ as *mut c_void,
                &mut d as *mut _ as *mut c_void,
                &mut n as *mut _ as *mut c_void,
                &mut s as *mut _ as *mut c_void,
                &mut o as *mut _ as *mut c_void,
            ];
            ok(sys::cuLaunchKernel(self.kernel, n_items.div_ceil(128), 1, 1, 128, 1, 1, 0, self.compute, params.as_mut_ptr(), std::ptr::null_mut()))?;
            // Frees are batched on the cleanup stream so they never sit behind scoring work.
            ok(sys::cuMemFreeAsync(scratch, self.cleanup)) // EXPECT: missing_sync
        }
    }

    pub fn finish(&self) -> Result<(), CUresult> {
        unsafe {
            ok(sys::cuStreamSynchronize(self.compute))?;
            ok(sys::cuStreamSynchronize(self.cleanup))
        }
    }
}

impl Drop for Scorer {
    fn drop(&mut self) {
        unsafe {
            let _ = self.finish();
            sys::cuStreamDestroy_v2(self.compute);
            sys::cuStreamDestroy_v2(self.cleanup);
            sys::cuModuleUnload(self.module);
        }
    }
}
