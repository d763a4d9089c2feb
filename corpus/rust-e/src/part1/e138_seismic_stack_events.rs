//! case: seismic CMP stacking with a copy stream and a compute stream double-buffering gathers; events order upload, kernel and download, the host waits on each staging slot's upload event before refilling it and on the download's event before reading the stack
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const STACK_SRC: &str = r#"
extern "C" __global__ void nmo_stack(const float* gather, int traces, int samples, const float* offsets,
                                     float velocity, float dt, float* stack) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= samples) return;
    float t0 = t * dt, acc = 0.0f;
    for (int tr = 0; tr < traces; ++tr) {
        float x = offsets[tr];
        float tx = sqrtf(t0 * t0 + (x * x) / (velocity * velocity));
        int s = (int)(tx / dt + 0.5f);
        if (s < samples) acc += gather[tr * samples + s];
    }
    stack[t] += acc / traces;
}
"#;

pub struct Stacker {
    copy: Stream,
    compute: Stream,
    kernel: Kernel,
    host_in: [PinnedBuffer<f32>; 2],
    dev_in: [DeviceBuffer<f32>; 2],
    uploaded: [Event; 2],
    consumed: [Event; 2],
    offsets: DeviceBuffer<f32>,
    stack: DeviceBuffer<f32>,
    host_out: PinnedBuffer<f32>,
    done: Event,
    traces: usize,
    samples: usize,
}

impl Stacker {
    pub fn new(ctx: &Context, traces: usize, samples: usize, offsets: &[f32]) -> Result<Self> {
        let mut staged_offsets = ctx.alloc_pinned::<f32>(traces)?;
        staged_offsets.copy_from_slice(offsets);
        let copy = ctx.new_stream()?;
        let mut dev_offsets = ctx.alloc::<f32>(traces)?;
        copy.copy_htod(&mut dev_offsets, &staged_offsets)?;
        Ok(Stacker {
            compute: ctx.new_stream()?,
            kernel: ctx.load_cuda(STACK_SRC)?.function("nmo_stack")?,
            host_in: [ctx.alloc_pinned(traces * samples)?, ctx.alloc_pinned(traces * samples)?],
            dev_in: [ctx.alloc(traces * samples)?, ctx.alloc(traces * samples)?],
            uploaded: [ctx.new_event()?, ctx.new_event()?],
            consumed: [ctx.new_event()?, ctx.new_event()?],
            offsets: dev_offsets,
            stack: ctx.alloc(samples)?,
            host_out: ctx.alloc_pinned(samples)?,
            done: ctx.new_event()?,
            copy,
            traces,
            samples,
        })
    }

    pub fn stack(&mut self, gathers: &[Vec<f32>], velocity: f32, dt: f32) -> Result<Vec<f32>> {
        self.compute.memset_d32(&mut self.stack, 0)?;
        let (traces, samples) = (self.traces as i32, self.samples as i32);
        let cfg = LaunchConfig::for_num_elems(self.samples as u32);
        for (k, gather) in gathers.iter().enumerate() {
            let b = k % 2;
            self.uploaded[b].synchronize()?; // the copy two gathers ago has read host_in[b]
            self.host_in[b].copy_from_slice(gather);
            self.copy.wait_event(&self.consumed[b])?; // and the kernel has read dev_in[b]
            unsafe { self.copy.copy_htod_async(&mut self.dev_in[b], &self.host_in[b])? };
            self.copy.record_event(&self.uploaded[b])?;
            self.compute.wait_event(&self.uploaded[b])?;
            unsafe {
                self.compute.launch(
                    &self.kernel,
                    cfg,
                    &[&self.dev_in[b], &traces, &samples, &self.offsets, &velocity, &dt, &self.stack],
                )?;
            }
            self.compute.record_event(&self.consumed[b])?;
        }
        let last = gathers.len().saturating_sub(1) % 2;
        self.copy.wait_event(&self.consumed[last])?;
        unsafe { self.copy.copy_dtoh_async(&mut self.host_out, &self.stack)? };
        self.copy.record_event(&self.done)?;
        self.done.synchronize()?;
        Ok(self.host_out.to_vec())
    }
}
