//! case: an audio gain stage with a ring of write-combined staging slots (cudarc `alloc_pinned`) that the host only ever writes, and a separate cached pinned buffer (`alloc_pinned_with_flags(.., 0)`) for the processed block it reads back after synchronizing
//! expect: none

use std::error::Error;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const GAIN_SRC: &str = r#"
extern "C" __global__ void soft_clip_gain(const float* in, float* out, unsigned int n, float gain)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = tanhf(gain * in[i]);
}
"#;

const SLOTS: usize = 3;

pub struct GainStage {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    staging: Vec<PinnedHostSlice<f32>>,
    device_in: Vec<CudaSlice<f32>>,
    device_out: CudaSlice<f32>,
    processed: PinnedHostSlice<f32>,
    next: usize,
    block_len: usize,
}

impl GainStage {
    pub fn new(block_len: usize) -> Result<Self, Box<dyn Error>> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(GAIN_SRC)?)?.load_function("soft_clip_gain")?;
        let staging = (0..SLOTS)
            .map(|_| unsafe { ctx.alloc_pinned::<f32>(block_len) })
            .collect::<Result<Vec<_>, _>>()?;
        let device_in = (0..SLOTS)
            .map(|_| stream.alloc_zeros::<f32>(block_len))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Self {
            device_out: stream.alloc_zeros::<f32>(block_len)?,
            processed: unsafe { ctx.alloc_pinned_with_flags::<f32>(block_len, 0)? },
            stream,
            kernel,
            staging,
            device_in,
            next: 0,
            block_len,
        })
    }

    /// Processes one block of samples; the returned peak is read from the cached readback.
    pub fn process(&mut self, samples: &[f32], gain: f32) -> Result<f32, Box<dyn Error>> {
        let slot = self.next;
        self.next = (self.next + 1) % SLOTS;
        let n = samples.len().min(self.block_len);

        let staged = self.staging[slot].as_mut_slice()?;
        staged[..n].copy_from_slice(&samples[..n]);
        staged[n..].iter_mut().for_each(|s| *s = 0.0);

        self.stream.memcpy_htod(&self.staging[slot], &mut self.device_in[slot])?;
        let len = self.block_len as u32;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.device_in[slot])
                .arg(&mut self.device_out)
                .arg(&len)
                .arg(&gain)
                .launch(LaunchConfig::for_num_elems(len))?
        };
        self.stream.memcpy_dtoh(&self.device_out, &mut self.processed)?;
        self.stream.synchronize()?;

        let peak = self.processed.as_slice()?[..n].iter().fold(0.0f32, |m, s| m.max(s.abs()));
        Ok(peak)
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let mut stage = GainStage::new(4096)?;
    let tone: Vec<f32> = (0..4096).map(|i| (i as f32 * 0.05).sin()).collect();
    for gain in [0.5f32, 1.0, 4.0, 16.0] {
        println!("gain {gain}: peak {:.4}", stage.process(&tone, gain)?);
    }
    Ok(())
}
