//! case: a scoring op launches its kernel through cudarc's raw `launch_kernel` with a pointer taken from `device_ptr_mut`, whose guard is dropped before the launch; cudarc's write event therefore predates the kernel, and the readback on the separate copy stream waits only for that event, not for the kernel
//! expect: missing_sync=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, PinnedHostSlice};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void cosine_scores(const float* query, const float* docs, float* scores, int dim, int n_docs) {
    int d = blockIdx.x * blockDim.x + threadIdx.x;
    if (d >= n_docs) return;
    float dot = 0.f, nq = 0.f, nd = 0.f;
    for (int k = 0; k < dim; ++k) {
        float q = query[k], x = docs[d * dim + k];
        dot += q * x; nq += q * q; nd += x * x;
    }
    scores[d] = dot * rsqrtf(nq * nd + 1e-12f);
}
"#;

pub struct Scorer {
    ctx: Arc<CudaContext>,
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    f: CudaFunction,
}

impl Scorer {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let f = ctx.load_module(compile_ptx(SCORE_SRC)?)?.load_function("cosine_scores")?;
        Ok(Self { compute: ctx.new_stream()?, copy: ctx.new_stream()?, ctx, f })
    }

    pub fn score(&self, query: &CudaSlice<f32>, docs: &CudaSlice<f32>, n_docs: usize) -> Result<PinnedHostSlice<f32>, Box<dyn std::error::Error>> {
        let mut scores = self.compute.alloc_zeros::<f32>(n_docs)?;
        let mut q_ptr = query.device_ptr(&self.compute).0;
        let mut d_ptr = docs.device_ptr(&self.compute).0;
        let mut s_ptr = scores.device_ptr_mut(&self.compute).0;
        let (mut dim, mut n) = (query.len() as i32, n_docs as i32);
        let mut params: [*mut c_void; 5] = [
            &mut q_ptr as *mut _ as *mut c_void,
            &mut d_ptr as *mut _ as *mut c_void,
            &mut s_ptr as *mut _ as *mut c_void,
            &mut dim as *mut _ as *mut c_void,
            &mut n as *mut _ as *mut c_void,
        ];
        let grid = ((n_docs as u32).div_ceil(256), 1, 1);
        unsafe { result::launch_kernel(self.f.cu_function(), grid, (256, 1, 1), 0, self.compute.cu_stream(), &mut params)? };

        let mut host = unsafe { self.ctx.alloc_pinned_with_flags::<f32>(n_docs, 0)? };
        self.copy.memcpy_dtoh(&scores, &mut host)?; // EXPECT: missing_sync
        Ok(host)
    }
}
