//! case: two-stage vector search on raw driver streams; the query block is uploaded from the caller's `Vec<f32>` with `cuMemcpyHtoDAsync_v2` (pageable), the compute stream waits on an event before the search kernel reads it, but the block is then freed with `cuMemFreeAsync` on the upload stream, which is not ordered after the kernel
//! expect: pageable_async_copy=1, missing_sync=1

use std::ffi::c_void;
use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SEARCH_SRC: &str = r#"
extern "C" __global__ void l2_topk1(const float* queries, const float* index, unsigned* best,
                                    unsigned n_queries, unsigned n_index, unsigned dim) {
    unsigned q = blockIdx.x * blockDim.x + threadIdx.x;
    if (q >= n_queries) return;
    float best_d = 3.4e38f; unsigned best_i = 0;
    for (unsigned i = 0; i < n_index; ++i) {
        float d = 0.0f;
        for (unsigned k = 0; k < dim; ++k) { float t = queries[q * dim + k] - index[i * dim + k]; d += t * t; }
        if (d < best_d) { best_d = d; best_i = i; }
    }
    best[q] = best_i;
}
"#;

pub struct VectorSearch {
    ctx: Arc<CudaContext>,
    search: CudaFunction,
    upload: CUstream,
    compute: CUstream,
    uploaded: CUevent,
    index: CUdeviceptr,
    n_index: u32,
    dim: u32,
}

impl VectorSearch {
    pub fn new(ctx: Arc<CudaContext>, index: CUdeviceptr, n_index: u32, dim: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let search = ctx.load_module(compile_ptx(SEARCH_SRC)?)?.load_function("l2_topk1")?;
        let (mut upload, mut compute): (CUstream, CUstream) = (ptr::null_mut(), ptr::null_mut());
        let mut uploaded: CUevent = ptr::null_mut();
        unsafe {
            sys::cuStreamCreate(&mut upload, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuEventCreate(&mut uploaded, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        }
        Ok(Self { ctx, search, upload, compute, uploaded, index, n_index, dim })
    }

    /// Nearest index entry per query, written to `best` (device, one u32 per query).
    pub fn search(&self, queries: &Vec<f32>, best: CUdeviceptr) -> Result<(), DriverError> {
        self.ctx.bind_to_thread()?;
        let bytes = queries.len() * std::mem::size_of::<f32>();
        let mut n_queries = (queries.len() / self.dim as usize) as u32;
        let mut q_dev: CUdeviceptr = 0;
        let (mut index, mut best, mut n_index, mut dim) = (self.index, best, self.n_index, self.dim);
        let mut params: [*mut c_void; 6] = [
            (&mut q_dev as *mut CUdeviceptr).cast(),
            (&mut index as *mut CUdeviceptr).cast(),
            (&mut best as *mut CUdeviceptr).cast(),
            (&mut n_queries as *mut u32).cast(),
            (&mut n_index as *mut u32).cast(),
            (&mut dim as *mut u32).cast(),
        ];
        unsafe {
            sys::cuMemAllocAsync(&mut q_dev, bytes, self.upload).result()?;
            sys::cuMemcpyHtoDAsync_v2(q_dev, queries.as_ptr().cast(), bytes, self.upload).result()?; // EXPECT: pageable_async_copy
            sys::cuEventRecord(self.uploaded, self.upload).result()?;
            sys::cuStreamWaitEvent(self.compute, self.uploaded, 0).result()?;
            sys::cuLaunchKernel(self.search.cu_function(), n_queries.div_ceil(128), 1, 1, 128, 1, 1, 0, self.compute, params.as_mut_ptr(), ptr::null_mut()).result()?;
            sys::cuMemFreeAsync(q_dev, self.upload).result()?; // EXPECT: missing_sync
        }
        Ok(())
    }

    pub fn finish(&self) -> Result<(), DriverError> {
        unsafe { sys::cuStreamSynchronize(self.compute).result() }
    }
}

impl Drop for VectorSearch {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.compute);
            let _ = sys::cuStreamSynchronize(self.upload);
            let _ = sys::cuEventDestroy_v2(self.uploaded);
            let _ = sys::cuStreamDestroy_v2(self.upload);
            let _ = sys::cuStreamDestroy_v2(self.compute);
        }
    }
}
