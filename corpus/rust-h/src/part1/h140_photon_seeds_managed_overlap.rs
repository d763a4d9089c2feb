//! case: double-buffered photon-transport batches with seeds in managed memory (cuda-lint-runtime `ManagedBuffer`): while batch k runs on the stream, the host writes batch k+1's seeds into the other managed buffer, which the running kernel does not use; on devices without concurrent managed access any host touch of managed memory while a kernel runs faults
//! expect: managed_concurrent_access=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, ManagedBuffer, PinnedBuffer, Result, Stream};

const BATCH_SRC: &str = r#"
extern "C" __global__ void photon_batch(const unsigned int* seeds, float* tally, int n, float mu_t) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    unsigned int s = seeds[p];
    float depth = 0.f;
    for (int k = 0; k < 32; ++k) {
        s = s * 1664525u + 1013904223u;
        depth += -__logf((s >> 8) * (1.f / 16777216.f) + 1e-7f) / mu_t;
    }
    atomicAdd(&tally[min((int)depth, 63)], 1.f);
}
"#;

struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_add(0x9E3779B97F4A7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58476D1CE4E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D049BB133111EB);
        (z ^ (z >> 31)) as u32
    }
}

pub struct PhotonRunner {
    stream: Stream,
    kernel: Kernel,
    seeds_cur: ManagedBuffer<u32>,
    seeds_next: ManagedBuffer<u32>,
    tally: DeviceBuffer<f32>,
    photons: usize,
}

impl PhotonRunner {
    pub fn new(ctx: &Context, photons: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(BATCH_SRC)?.function("photon_batch")?,
            seeds_cur: ctx.alloc_managed(photons)?,
            seeds_next: ctx.alloc_managed(photons)?,
            tally: ctx.alloc_zeroed(64)?,
            photons,
        })
    }

    pub fn run(&mut self, batches: usize, mu_t: f32, seed: u64, out: &mut PinnedBuffer<f32>) -> Result<()> {
        let mut rng = SplitMix(seed);
        self.seeds_cur.iter_mut().for_each(|s| *s = rng.next());
        let n = self.photons as i32;
        for _ in 0..batches {
            unsafe {
                self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n as u32), &[&self.seeds_cur, &mut self.tally, &n, &mu_t])?;
            }
            // Prepare the next batch's seeds while this one runs.
            self.seeds_next.iter_mut().for_each(|s| *s = rng.next()); // EXPECT: managed_concurrent_access
            self.stream.synchronize()?;
            std::mem::swap(&mut self.seeds_cur, &mut self.seeds_next);
        }
        self.stream.copy_dtoh(out, &self.tally)
    }
}
