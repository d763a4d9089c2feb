//! case: serving engine takes a per-request softmax workspace from the stream-ordered allocator on the compute stream and, to keep the compute stream short, returns it with cuMemFreeAsync on a separate housekeeping stream that has no ordering with the kernel still using it
//! expect: missing_sync=1

use std::ffi::{c_void, CString};

use cudarc::driver::{result, sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const SOFTMAX_SRC: &str = r#"
extern "C" __global__ void masked_softmax(const float* scores, float* workspace, float* probs,
                                          int rows, int cols, int valid_cols) {
    int r = blockIdx.x;
    if (r >= rows) return;
    float* row_max = workspace + r * 2;
    if (threadIdx.x == 0) {
        float m = -1e30f, s = 0.0f;
        for (int c = 0; c < valid_cols; ++c) m = fmaxf(m, scores[r * cols + c]);
        for (int c = 0; c < valid_cols; ++c) s += __expf(scores[r * cols + c] - m);
        row_max[0] = m; row_max[1] = s;
    }
    __syncthreads();
    for (int c = threadIdx.x; c < cols; c += blockDim.x)
        probs[r * cols + c] = c < valid_cols ? __expf(scores[r * cols + c] - row_max[0]) / row_max[1] : 0.0f;
}
"#;

pub struct AttentionStage {
    module: sys::CUmodule,
    softmax: sys::CUfunction,
    compute: sys::CUstream,
    housekeeping: sys::CUstream,
}

pub struct Request {
    pub scores: sys::CUdeviceptr,
    pub probs: sys::CUdeviceptr,
    pub rows: i32,
    pub cols: i32,
    pub valid_cols: i32,
}

impl AttentionStage {
    /// Needs the engine's context to be current on this thread.
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(SOFTMAX_SRC)?.to_src())?;
        unsafe {
            let module = result::module::load_data(image.as_ptr() as *const c_void)?;
            let softmax = result::module::get_function(module, CString::new("masked_softmax")?)?;
            let compute = result::stream::create(result::stream::StreamKind::NonBlocking)?;
            let housekeeping = result::stream::create(result::stream::StreamKind::NonBlocking)?;
            Ok(AttentionStage { module, softmax, compute, housekeeping })
        }
    }

    pub fn run(&self, req: &Request) -> Result<(), DriverError> {
        let ws_bytes = req.rows as usize * 2 * 4;
        unsafe {
            let mut workspace = result::malloc_async(self.compute, ws_bytes)?;
            let (mut scores, mut probs) = (req.scores, req.probs);
            let (mut rows, mut cols, mut valid) = (req.rows, req.cols, req.valid_cols);
            let mut args = [
                &mut scores as *mut u64 as *mut c_void,
                &mut workspace as *mut u64 as *mut c_void,
                &mut probs as *mut u64 as *mut c_void,
                &mut rows as *mut i32 as *mut c_void,
                &mut cols as *mut i32 as *mut c_void,
                &mut valid as *mut i32 as *mut c_void,
            ];
            result::launch_kernel(self.softmax, (req.rows as u32, 1, 1), (128, 1, 1), 0, self.compute, &mut args)?;
            result::free_async(workspace, self.housekeeping)?; // EXPECT: missing_sync
        }
        Ok(())
    }

    pub fn drain(&self) -> Result<(), DriverError> {
        unsafe {
            result::stream::synchronize(self.compute)?;
            result::stream::synchronize(self.housekeeping)
        }
    }
}

impl Drop for AttentionStage {
    fn drop(&mut self) {
        let _ = self.drain();
        unsafe {
            let _ = result::stream::destroy(self.compute);
            let _ = result::stream::destroy(self.housekeeping);
            let _ = result::module::unload(self.module);
        }
    }
}
