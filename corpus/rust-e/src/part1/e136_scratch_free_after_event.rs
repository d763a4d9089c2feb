//! case: embedding-gather stage allocates a scratch buffer with cudaMallocAsync on the compute stream and frees it with cudaFreeAsync on the copy stream only after that stream waits on an event recorded behind the kernel, so the free is ordered after every use
//! expect: none

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{self, RuntimeError};
use cudarc::runtime::sys;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_rows(const float* table, const int* ids, int* scratch,
                                       float* out, int n, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int row = ids[i];
    scratch[i] = row < 0 ? 0 : row;        // padding tokens map to row 0
    for (int d = 0; d < dim; ++d) out[i * dim + d] = table[scratch[i] * dim + d];
}
"#;

pub struct EmbeddingGather {
    _ctx: Arc<CudaContext>,
    gather: CudaFunction,
    compute: sys::cudaStream_t,
    copy: sys::cudaStream_t,
}

impl EmbeddingGather {
    pub fn new() -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let gather = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather_rows")?;
        let compute = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let copy = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        Ok(EmbeddingGather { _ctx: ctx, gather, compute, copy })
    }

    /// Gathers `n` rows of `table` (row width `dim`) selected by `ids` into `out`.
    pub unsafe fn gather(&self, table: *const f32, ids: *const i32, n: usize, dim: usize, out: *mut f32) -> Result<(), RuntimeError> {
        unsafe {
            let scratch = result::malloc_async(self.compute, n * 4)?;
            let (mut t, mut i, mut s, mut o) = (table, ids, scratch, out);
            let (mut n_i, mut dim_i) = (n as i32, dim as i32);
            let mut args = [
                &mut t as *mut *const f32 as *mut c_void,
                &mut i as *mut *const i32 as *mut c_void,
                &mut s as *mut *mut c_void as *mut c_void,
                &mut o as *mut *mut f32 as *mut c_void,
                &mut n_i as *mut i32 as *mut c_void,
                &mut dim_i as *mut i32 as *mut c_void,
            ];
            let blocks = (n as u32).div_ceil(128);
            result::launch_kernel(self.gather.cu_function(), (blocks, 1, 1), (128, 1, 1), 0, self.compute, &mut args)?;
            let mut used: sys::cudaEvent_t = ptr::null_mut();
            sys::cudaEventCreateWithFlags(&mut used, sys::cudaEventDisableTiming).result()?;
            sys::cudaEventRecord(used, self.compute).result()?;
            sys::cudaStreamWaitEvent(self.copy, used, 0).result()?;
            result::free_async(scratch, self.copy)?;
            sys::cudaEventDestroy(used).result()?;
        }
        Ok(())
    }
}

impl Drop for EmbeddingGather {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.compute);
            let _ = result::stream::synchronize(self.copy);
            let _ = result::stream::destroy(self.compute);
            let _ = result::stream::destroy(self.copy);
        }
    }
}
