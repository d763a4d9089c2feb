//! case: agent-based epidemic model keeps agent states in managed memory; after launching the infection step it tallies the compartments by reading the managed states on the host before synchronizing the stream the step runs on
//! expect: missing_sync=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, ManagedBuffer, Result, Stream};

const SEIR_SRC: &str = r#"
__device__ float hash01(unsigned int x) { x ^= x >> 16; x *= 0x7feb352d; x ^= x >> 15; x *= 0x846ca68b; x ^= x >> 16; return (x & 0xffffff) / 16777216.0f; }
// states: 0 S, 1 E, 2 I, 3 R
extern "C" __global__ void seir_step(unsigned char* state, const int* contacts, int k, int n,
                                     float beta, float sigma, float gamma, unsigned int day) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float u = hash01(i * 2654435761u ^ day);
    unsigned char s = state[i];
    if (s == 0) {
        int infected = 0;
        for (int c = 0; c < k; ++c) infected += state[contacts[i * k + c]] == 2;
        if (u < 1.0f - __powf(1.0f - beta, (float)infected)) s = 1;
    } else if (s == 1 && u < sigma) s = 2;
    else if (s == 2 && u < gamma) s = 3;
    state[i] = s;
}
"#;

#[derive(Debug, Default, Clone, Copy)]
pub struct Tally {
    pub susceptible: usize,
    pub exposed: usize,
    pub infectious: usize,
    pub recovered: usize,
}

pub struct Params {
    pub beta: f32,
    pub sigma: f32,
    pub gamma: f32,
}

pub struct Epidemic {
    stream: Stream,
    step: Kernel,
    state: ManagedBuffer<u8>,
    contacts: ManagedBuffer<i32>,
    k: usize,
    day: u32,
}

impl Epidemic {
    pub fn new(ctx: &Context, contacts: &[Vec<u32>], k: usize, seeds: &[usize]) -> Result<Self> {
        let n = contacts.len();
        let mut state = ctx.alloc_managed::<u8>(n)?;
        let mut flat = ctx.alloc_managed::<i32>(n * k)?;
        for (dst, src) in flat.chunks_exact_mut(k).zip(contacts) {
            for (d, s) in dst.iter_mut().zip(src.iter().cycle()) {
                *d = *s as i32;
            }
        }
        seeds.iter().for_each(|&i| state[i] = 2);
        Ok(Epidemic {
            stream: ctx.new_stream()?,
            step: ctx.load_cuda(SEIR_SRC)?.function("seir_step")?,
            state,
            contacts: flat,
            k,
            day: 0,
        })
    }

    pub fn advance_day(&mut self, p: &Params) -> Result<Tally> {
        let (k, n) = (self.k as i32, self.state.num_elems() as i32);
        unsafe {
            self.stream.launch(
                &self.step,
                LaunchConfig::for_num_elems(n as u32),
                &[&self.state, &self.contacts, &k, &n, &p.beta, &p.sigma, &p.gamma, &self.day],
            )?;
        }
        self.day += 1;
        let mut tally = Tally::default();
        for &s in self.state.iter() { // EXPECT: missing_sync
            match s {
                0 => tally.susceptible += 1,
                1 => tally.exposed += 1,
                2 => tally.infectious += 1,
                _ => tally.recovered += 1,
            }
        }
        self.stream.synchronize()?;
        Ok(tally)
    }
}
