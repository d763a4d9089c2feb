//! case: a serving loop keeps the next batch's sequence lengths in cudarc unified memory (attached globally) and writes them from the host while the attention kernel of the current batch, which does not use that buffer, is still running on the compute stream
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SERVE_SRC: &str = r#"
extern "C" __global__ void decode_attention(const float* q, const float* kv, float* out, int heads, int ctx_len, int dim) {
    int h = blockIdx.x, d = threadIdx.x;
    if (h >= heads || d >= dim) return;
    float acc = 0.f;
    for (int t = 0; t < ctx_len; ++t) acc += q[h * dim + d] * kv[(t * heads + h) * dim + d];
    out[h * dim + d] = acc / ctx_len;
}
extern "C" __global__ void exclusive_offsets(const unsigned int* lens, unsigned int* offsets, int batch) {
    if (blockIdx.x == 0 && threadIdx.x == 0) {
        unsigned int run = 0;
        for (int b = 0; b < batch; ++b) { offsets[b] = run; run += lens[b]; }
        offsets[batch] = run;
    }
}
"#;

pub struct ServeLoop {
    compute: Arc<CudaStream>,
    attention: CudaFunction,
    offsets_fn: CudaFunction,
    next_lens: UnifiedSlice<u32>,
    offsets: CudaSlice<u32>,
}

impl ServeLoop {
    pub fn new(ctx: &Arc<CudaContext>, max_batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SERVE_SRC)?)?;
        let compute = ctx.new_stream()?;
        Ok(Self {
            attention: module.load_function("decode_attention")?,
            offsets_fn: module.load_function("exclusive_offsets")?,
            next_lens: unsafe { ctx.alloc_unified::<u32>(max_batch, true)? },
            offsets: compute.alloc_zeros::<u32>(max_batch + 1)?,
            compute,
        })
    }

    pub fn step(&mut self, q: &CudaSlice<f32>, kv: &CudaSlice<f32>, out: &mut CudaSlice<f32>, heads: i32, ctx_len: i32, dim: i32, upcoming: &[u32]) -> Result<(), Box<dyn std::error::Error>> {
        let cfg = LaunchConfig { grid_dim: (heads as u32, 1, 1), block_dim: (dim as u32, 1, 1), shared_mem_bytes: 0 };
        let mut attn = self.compute.launch_builder(&self.attention);
        attn.arg(q).arg(kv).arg(out).arg(&heads).arg(&ctx_len).arg(&dim);
        unsafe { attn.launch(cfg)? };

        // overlap: stage the next batch's lengths while attention runs
        self.next_lens.as_mut_slice()?[..upcoming.len()].copy_from_slice(upcoming); // EXPECT: managed_concurrent_access
        self.compute.synchronize()?;

        let batch = upcoming.len() as i32;
        let mut offs = self.compute.launch_builder(&self.offsets_fn);
        offs.arg(&self.next_lens).arg(&mut self.offsets).arg(&batch);
        unsafe { offs.launch(LaunchConfig::for_num_elems(1))? };
        self.compute.synchronize()?;
        Ok(())
    }
}
