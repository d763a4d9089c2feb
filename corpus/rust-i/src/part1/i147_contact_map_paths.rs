//! case: protein contact-map predictor on the runtime layer: `predict` returns early with `?` on validation and enqueue errors, branches on the refinement mode, and every path that reaches the host read of the pinned contact map goes through stream.synchronize() first (near-miss for missing_sync: the sync is on each branch)
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const CONTACT_SRC: &str = r#"
extern "C" __global__ void pair_logits(const float* emb, float* logits, unsigned L, unsigned d) {
    unsigned i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= L || j >= L) return;
    float s = 0.f;
    for (unsigned k = 0; k < d; ++k) s += emb[i * d + k] * emb[j * d + k];
    logits[i * L + j] = s / sqrtf((float)d);
}
extern "C" __global__ void symmetrize(float* logits, unsigned L) {
    unsigned i = blockIdx.y, j = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= L || j >= L || j <= i) return;
    float m = 0.5f * (logits[i * L + j] + logits[j * L + i]);
    logits[i * L + j] = m; logits[j * L + i] = m;
}
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Fast,
    Refined,
}

pub struct ContactPredictor {
    stream: Stream,
    logits_k: Kernel,
    sym_k: Kernel,
    dim: usize,
    max_len: usize,
}

pub struct Contact {
    pub i: usize,
    pub j: usize,
    pub p: f32,
}

impl ContactPredictor {
    pub fn new(ctx: &Context, dim: usize, max_len: usize) -> Result<Self> {
        let m = ctx.load_cuda(CONTACT_SRC)?;
        Ok(Self { stream: ctx.new_stream()?, logits_k: m.function("pair_logits")?, sym_k: m.function("symmetrize")?, dim, max_len })
    }

    fn validate(&self, emb: &PinnedBuffer<f32>) -> Result<usize> {
        if emb.len() % self.dim != 0 {
            return Err(Error::InvalidArgument { call: "predict", reason: "embedding width mismatch".into() });
        }
        let l = emb.len() / self.dim;
        if l < 8 || l > self.max_len {
            return Err(Error::InvalidArgument { call: "predict", reason: format!("sequence length {l} out of range") });
        }
        Ok(l)
    }

    pub fn predict(&self, ctx: &Context, emb: &PinnedBuffer<f32>, mode: Mode, top: usize) -> Result<Vec<Contact>> {
        let l = self.validate(emb)?;
        let mut d_emb: DeviceBuffer<f32> = ctx.alloc(emb.len())?;
        let d_logits: DeviceBuffer<f32> = ctx.alloc(l * l)?;
        let mut map: PinnedBuffer<f32> = ctx.alloc_pinned(l * l)?;
        unsafe { self.stream.copy_htod_async(&mut d_emb, emb)? };
        let (lu, du) = (l as u32, self.dim as u32);
        let cfg = LaunchConfig { grid: (lu.div_ceil(64), lu, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.logits_k, cfg, &[&d_emb, &d_logits, &lu, &du])? };

        match mode {
            Mode::Fast => {
                unsafe { self.stream.copy_dtoh_async(&mut map, &d_logits)? };
                self.stream.synchronize()?;
            }
            Mode::Refined => {
                unsafe { self.stream.launch(&self.sym_k, cfg, &[&d_logits, &lu])? };
                unsafe { self.stream.copy_dtoh_async(&mut map, &d_logits)? };
                self.stream.synchronize()?;
            }
        }

        let mut contacts: Vec<Contact> = (0..l)
            .flat_map(|i| (i + 6..l).map(move |j| (i, j)))
            .map(|(i, j)| Contact { i, j, p: 1.0 / (1.0 + (-map[i * l + j]).exp()) })
            .collect();
        contacts.sort_by(|a, b| b.p.total_cmp(&a.p));
        contacts.truncate(top);
        Ok(contacts)
    }
}
