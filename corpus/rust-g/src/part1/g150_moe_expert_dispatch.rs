//! case: mixture-of-experts layer with a router stream and an expert stream (cudarc, event tracking on): the router kernel gets its per-expert counter array as a raw pointer into a larger stats buffer (`device_ptr_mut(..).0`, guard dropped before the launch), so cudarc records no write on that buffer after the kernel; the expert stream's `clone_dtoh` of the stats then waits for nothing and can read the counters before the router has written them, into a freshly allocated (pageable) `Vec`
//! expect: missing_sync=1, pageable_async_copy=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const MOE_SRC: &str = r#"
extern "C" __global__ void route_top1(const float* gate_logits, int* expert_ids, unsigned* counts,
                                      unsigned n_tok, unsigned n_exp) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n_tok) return;
    const float* row = gate_logits + (size_t)t * n_exp;
    int best = 0;
    for (unsigned e = 1; e < n_exp; ++e) if (row[e] > row[best]) best = e;
    expert_ids[t] = best;
    atomicAdd(&counts[best], 1u);
}

extern "C" __global__ void expert_ffn(const float* x, const int* expert_ids, const float* w, float* y,
                                      int expert, unsigned n_tok, unsigned dim) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n_tok * dim) return;
    unsigned t = i / dim;
    if (expert_ids[t] == expert) y[i] = fmaxf(0.0f, x[i] * w[(size_t)expert * dim + i % dim]);
}
"#;

pub struct MoeLayer {
    router: Arc<CudaStream>,
    experts: Arc<CudaStream>,
    w: CudaSlice<f32>,
    /// [0, n_exp): tokens routed per expert; [n_exp, 2 n_exp): dropped tokens per expert
    stats: CudaSlice<u32>,
    n_exp: usize,
    dim: usize,
}

impl MoeLayer {
    pub fn new(ctx: &Arc<CudaContext>, n_exp: usize, dim: usize) -> Result<Self> {
        let router = ctx.new_stream()?;
        let experts = ctx.new_stream()?;
        Ok(MoeLayer {
            w: experts.alloc_zeros::<f32>(n_exp * dim)?,
            stats: router.alloc_zeros::<u32>(2 * n_exp)?,
            router,
            experts,
            n_exp,
            dim,
        })
    }

    pub fn forward(&mut self, x: &CudaSlice<f32>, gate_logits: &CudaSlice<f32>, y: &mut CudaSlice<f32>) -> Result<Vec<u32>> {
        let module = self.router.context().load_module(compile_ptx(MOE_SRC)?)?;
        let (route, ffn) = (module.load_function("route_top1")?, module.load_function("expert_ffn")?);
        let n_tok = (x.len() / self.dim) as u32;
        let (n_exp, dim) = (self.n_exp as u32, self.dim as u32);

        self.router.memset_zeros(&mut self.stats)?;
        let mut expert_ids = self.router.alloc_zeros::<i32>(n_tok as usize)?;
        let counts = self.stats.device_ptr_mut(&self.router).0;
        let mut r = self.router.launch_builder(&route);
        r.arg(gate_logits).arg(&mut expert_ids).arg(&counts).arg(&n_tok).arg(&n_exp);
        unsafe { r.launch(LaunchConfig::for_num_elems(n_tok))? };

        let per_expert = self.experts.clone_dtoh(&self.stats)?; // EXPECT: missing_sync, pageable_async_copy
        for (e, &count) in per_expert[..self.n_exp].iter().enumerate() {
            if count == 0 {
                continue; // no token picked this expert: skip its FFN
            }
            let expert = e as i32;
            let mut f = self.experts.launch_builder(&ffn);
            f.arg(x).arg(&expert_ids).arg(&self.w).arg(&mut *y).arg(&expert).arg(&n_tok).arg(&dim);
            unsafe { f.launch(LaunchConfig::for_num_elems(n_tok * dim))? };
        }
        self.experts.synchronize()?;
        Ok(per_expert)
    }
}
