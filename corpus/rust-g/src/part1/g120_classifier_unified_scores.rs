//! case: text classifier on cudarc's default stream whose softmax writes class probabilities into a `UnifiedSlice` passed to the launch builder; `as_slice` then waits on the slice's own event, which cudarc records after every launch that takes a unified slice (with one stream too), so the read sees the kernel's result
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const HEAD_SRC: &str = r#"
extern "C" __global__ void linear_head(const float* pooled, const float* w, const float* b, float* logits,
                                       unsigned dim, unsigned classes, unsigned batch) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= batch * classes) return;
    unsigned r = i / classes, c = i % classes;
    float s = b[c];
    for (unsigned k = 0; k < dim; ++k) s += pooled[(size_t)r * dim + k] * w[(size_t)c * dim + k];
    logits[i] = s;
}

extern "C" __global__ void softmax_rows(const float* logits, float* probs, unsigned classes, unsigned batch) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= batch) return;
    float m = -1e30f, z = 0.0f;
    for (unsigned c = 0; c < classes; ++c) m = fmaxf(m, logits[r * classes + c]);
    for (unsigned c = 0; c < classes; ++c) z += expf(logits[r * classes + c] - m);
    for (unsigned c = 0; c < classes; ++c) probs[r * classes + c] = expf(logits[r * classes + c] - m) / z;
}
"#;

pub struct Classifier {
    ctx: Arc<CudaContext>,
    w: CudaSlice<f32>,
    b: CudaSlice<f32>,
    dim: u32,
    classes: u32,
}

impl Classifier {
    pub fn new(dim: u32, classes: u32) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.default_stream();
        let w = stream.alloc_zeros::<f32>((dim * classes) as usize)?;
        let b = stream.alloc_zeros::<f32>(classes as usize)?;
        Ok(Classifier { ctx, w, b, dim, classes })
    }

    pub fn predict(&self, pooled: &CudaSlice<f32>, batch: u32) -> Result<Vec<(usize, f32)>> {
        let stream = self.ctx.default_stream();
        let module = self.ctx.load_module(compile_ptx(HEAD_SRC)?)?;
        let (head, softmax) = (module.load_function("linear_head")?, module.load_function("softmax_rows")?);
        let mut logits = stream.alloc_zeros::<f32>((batch * self.classes) as usize)?;
        let mut probs = unsafe { self.ctx.alloc_unified::<f32>((batch * self.classes) as usize, true)? };

        let mut l = stream.launch_builder(&head);
        l.arg(pooled).arg(&self.w).arg(&self.b).arg(&mut logits).arg(&self.dim).arg(&self.classes).arg(&batch);
        unsafe { l.launch(LaunchConfig::for_num_elems(batch * self.classes))? };
        let mut s = stream.launch_builder(&softmax);
        s.arg(&logits).arg(&mut probs).arg(&self.classes).arg(&batch);
        unsafe { s.launch(LaunchConfig::for_num_elems(batch))? };

        let probs = probs.as_slice()?;
        Ok(probs
            .chunks(self.classes as usize)
            .map(|row| {
                row.iter()
                    .copied()
                    .enumerate()
                    .fold((0, f32::MIN), |best, (c, p)| if p > best.1 { (c, p) } else { best })
            })
            .collect())
    }
}
