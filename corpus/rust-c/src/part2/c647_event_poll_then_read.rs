//! case: a game-server physics step records an event after downloading contact results into pinned memory and polls it with `query` while doing CPU work, reading the contacts only once the event reports completion
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const CONTACT_SRC: &str = r#"
extern "C" __global__ void sphere_contacts(const float* pos, const float* radius, unsigned* hits, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned c = 0;
    for (unsigned j = 0; j < n; ++j) {
        if (j == i) continue;
        float dx = pos[3*i] - pos[3*j], dy = pos[3*i+1] - pos[3*j+1], dz = pos[3*i+2] - pos[3*j+2];
        float r = radius[i] + radius[j];
        c += (dx*dx + dy*dy + dz*dz) < r*r;
    }
    hits[i] = c;
}
"#;

pub struct ContactPass {
    stream: Stream,
    kernel: Kernel,
    hits: DeviceBuffer<u32>,
    hits_host: PinnedBuffer<u32>,
    done: Event,
}

pub trait CpuWork {
    /// Does a slice of CPU-side work; returns false when there is nothing left.
    fn step(&mut self) -> bool;
}

impl ContactPass {
    pub fn new(ctx: &Context, bodies: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(CONTACT_SRC)?.function("sphere_contacts")?,
            hits: ctx.alloc(bodies)?,
            hits_host: ctx.alloc_pinned(bodies)?,
            done: ctx.new_event()?,
        })
    }

    /// Runs the contact pass, overlapping it with `cpu`; returns the bodies touching something.
    pub fn run(&mut self, pos: &DeviceBuffer<f32>, radius: &DeviceBuffer<f32>, cpu: &mut dyn CpuWork) -> Result<Vec<usize>> {
        let n = radius.len() as u32;
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[pos, radius, &self.hits, &n])?;
            self.stream.copy_dtoh_async(&mut self.hits_host, &self.hits)?;
        }
        self.stream.record_event(&self.done)?;

        while !self.done.query()? {
            if !cpu.step() {
                std::hint::spin_loop();
            }
        }
        Ok(self.hits_host.iter().enumerate().filter(|&(_, &h)| h > 0).map(|(i, _)| i).collect())
    }
}
