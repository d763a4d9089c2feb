//! case: Monte-Carlo photon transport with its depth-dose tally in a runtime-layer ManagedBuffer; after ctx.synchronize() the host walks the tally through the buffer's raw (managed) pointer with slice::from_raw_parts — managed memory is host-dereferenceable (near-miss for host_deref_device_ptr)
//! expect: none

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result};

const PHOTON_SRC: &str = r#"
extern "C" __global__ void transport(unsigned* tally, unsigned bins, float mu, unsigned long long seed, unsigned histories) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= histories) return;
    unsigned long long s = seed ^ (i * 0x9E3779B97F4A7C15ull);
    float depth = 0.f;
    for (int k = 0; k < 64; ++k) {
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        float u = (float)((s >> 40) & 0xffffff) / 16777216.f;
        depth += -__logf(u + 1e-7f) / mu;
        unsigned b = (unsigned)depth;
        if (b >= bins) break;
        atomicAdd(&tally[b], 1u);
    }
}
"#;

pub struct DoseProfile {
    pub bins: Vec<f64>,
}

pub struct PhotonSim {
    kernel: Kernel,
    tally: ManagedBuffer<u32>,
}

impl PhotonSim {
    pub fn new(ctx: &Context, bins: usize) -> Result<Self> {
        Ok(Self { kernel: ctx.load_cuda(PHOTON_SRC)?.function("transport")?, tally: ctx.alloc_managed(bins)? })
    }

    pub fn run(&mut self, ctx: &Context, histories: u32, mu: f32, seed: u64) -> Result<DoseProfile> {
        let streams = (0..4).map(|_| ctx.new_stream()).collect::<Result<Vec<_>>>()?;
        let bins = self.tally.num_elems() as u32;
        let per = histories / streams.len() as u32;
        for (k, s) in streams.iter().enumerate() {
            let sd = seed.wrapping_add(k as u64 * 7919);
            unsafe { s.launch(&self.kernel, LaunchConfig::for_num_elems(per), &[&self.tally, &bins, &mu, &sd, &per])? };
        }
        ctx.synchronize()?;
        let raw = self.tally.device_ptr().as_raw() as *const u32;
        let counts = unsafe { std::slice::from_raw_parts(raw, bins as usize) };
        let total: u64 = counts.iter().map(|&c| c as u64).sum();
        Ok(DoseProfile { bins: counts.iter().map(|&c| c as f64 / total.max(1) as f64).collect() })
    }
}
