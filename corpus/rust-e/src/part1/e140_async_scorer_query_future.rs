//! case: async inference micro-batcher over cudarc's runtime API; `score` is an `async fn` that enqueues upload, kernel and download through cudaMallocHost staging and then awaits a future that polls cudaStreamQuery until the stream is idle before reading the scores
//! expect: none

use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::ptr;
use std::sync::Arc;
use std::task::{Context, Poll, Waker};

use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{self, RuntimeError};
use cudarc::runtime::sys;

const MLP_SRC: &str = r#"
extern "C" __global__ void logistic_score(const float* x, const float* w, float bias, int dim, int batch, float* out) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    float z = bias;
    for (int d = 0; d < dim; ++d) z += x[b * dim + d] * w[d];
    out[b] = 1.0f / (1.0f + __expf(-z));
}
"#;

/// Resolves once all work enqueued on `stream` has finished.
struct StreamIdle {
    stream: sys::cudaStream_t,
}

impl Future for StreamIdle {
    type Output = Result<(), RuntimeError>;
    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match unsafe { sys::cudaStreamQuery(self.stream) } {
            sys::cudaError_t::cudaErrorNotReady => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            rc => Poll::Ready(rc.result()),
        }
    }
}

pub struct Scorer {
    _ctx: Arc<CudaContext>,
    func: CudaFunction,
    stream: sys::cudaStream_t,
    staging_x: *mut f32,
    staging_out: *mut f32,
    dev_x: *mut c_void,
    dev_w: *mut c_void,
    dev_out: *mut c_void,
    dim: usize,
    max_batch: usize,
    bias: f32,
}

impl Scorer {
    pub fn new(weights: &[f32], bias: f32, max_batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let func = ctx.load_module(compile_ptx(MLP_SRC)?)?.load_function("logistic_score")?;
        let dim = weights.len();
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let (mut sx, mut so) = (ptr::null_mut(), ptr::null_mut());
        unsafe {
            sys::cudaMallocHost(&mut sx, max_batch * dim * 4).result()?;
            sys::cudaMallocHost(&mut so, max_batch * 4).result()?;
            let dev_x = result::malloc_sync(max_batch * dim * 4)?;
            let dev_w = result::malloc_sync(dim * 4)?;
            let dev_out = result::malloc_sync(max_batch * 4)?;
            // weights: staged through the (still idle) input staging buffer
            std::slice::from_raw_parts_mut(sx as *mut f32, dim).copy_from_slice(weights);
            result::memcpy_htod_async(dev_w, std::slice::from_raw_parts(sx as *const f32, dim), stream)?;
            result::stream::synchronize(stream)?;
            Ok(Scorer { _ctx: ctx, func, stream, staging_x: sx as *mut f32, staging_out: so as *mut f32, dev_x, dev_w, dev_out, dim, max_batch, bias })
        }
    }

    pub async fn score(&mut self, rows: &[Vec<f32>]) -> Result<Vec<f32>, RuntimeError> {
        let batch = rows.len().min(self.max_batch);
        let x = unsafe { std::slice::from_raw_parts_mut(self.staging_x, batch * self.dim) };
        for (dst, row) in x.chunks_exact_mut(self.dim).zip(rows) {
            dst.copy_from_slice(&row[..self.dim]);
        }
        let out = unsafe { std::slice::from_raw_parts_mut(self.staging_out, batch) };
        let (mut px, mut pw, mut po) = (self.dev_x, self.dev_w, self.dev_out);
        let (mut bias, mut dim, mut b) = (self.bias, self.dim as i32, batch as i32);
        let mut args = [
            &mut px as *mut *mut c_void as *mut c_void,
            &mut pw as *mut *mut c_void as *mut c_void,
            &mut bias as *mut f32 as *mut c_void,
            &mut dim as *mut i32 as *mut c_void,
            &mut b as *mut i32 as *mut c_void,
            &mut po as *mut *mut c_void as *mut c_void,
        ];
        unsafe {
            result::memcpy_htod_async(self.dev_x, &*x, self.stream)?;
            result::launch_kernel(self.func.cu_function(), ((batch as u32).div_ceil(128), 1, 1), (128, 1, 1), 0, self.stream, &mut args)?;
            result::memcpy_dtoh_async(out, self.dev_out, self.stream)?;
        }
        StreamIdle { stream: self.stream }.await?;
        Ok(out.to_vec())
    }
}

/// Minimal executor for callers without a runtime: polls until ready.
pub fn block_on<F: Future>(fut: F) -> F::Output {
    let mut fut = std::pin::pin!(fut);
    let mut cx = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(v) = fut.as_mut().poll(&mut cx) {
            return v;
        }
        std::thread::yield_now();
    }
}

impl Drop for Scorer {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = sys::cudaFreeHost(self.staging_x as *mut c_void);
            let _ = sys::cudaFreeHost(self.staging_out as *mut c_void);
            for p in [self.dev_x, self.dev_w, self.dev_out] {
                let _ = result::free_sync(p);
            }
            let _ = result::stream::destroy(self.stream);
        }
    }
}
