//! The chain: pinned I/O, the effects as trait objects, one stream.

use cuda_lint_runtime::{Context, PinnedBuffer, Result, Stream};

use super::stages::{Biquad, Buffers, Effect, Gain, Limiter, FX_SRC};

pub struct FxChain {
    stream: Stream,
    effects: Vec<Box<dyn Effect>>,
    bufs: Buffers,
    io: PinnedBuffer<f32>,
}

impl FxChain {
    pub fn new(ctx: &Context, frames: u32, channels: u32, gain: f32, lowpass: [f32; 5]) -> Result<Self> {
        let module = ctx.load_cuda(FX_SRC)?;
        let stream = ctx.new_stream()?;
        let n = (frames * channels) as usize;
        let mut state = ctx.alloc::<f32>(4 * channels as usize)?;
        stream.memset_d32_async(&mut state, 0)?;
        let effects: Vec<Box<dyn Effect>> = vec![
            Box::new(Gain { kernel: module.function("apply_gain")?, gain }),
            Box::new(Biquad { kernel: module.function("biquad")?, coeffs: lowpass, state }),
            Box::new(Limiter { kernel: module.function("soft_limit")?, ceiling: 0.98 }),
        ];
        let bufs = Buffers { main: ctx.alloc::<f32>(n)?, scratch: ctx.alloc::<f32>(n)?, frames, channels };
        Ok(Self { stream, effects, bufs, io: ctx.alloc_pinned::<f32>(n)? })
    }

    /// Processes one interleaved block in place.
    pub fn process(&mut self, block: &mut [f32]) -> Result<Vec<&str>> {
        self.io.copy_from_slice(block);
        unsafe { self.stream.copy_htod_async(&mut self.bufs.main, &self.io)? };
        let mut ran = Vec::with_capacity(self.effects.len());
        for fx in self.effects.iter_mut() {
            fx.enqueue(&self.stream, &mut self.bufs)?;
            ran.push(fx.name());
        }
        unsafe { self.stream.copy_dtoh_async(&mut self.io, &self.bufs.main)? };
        self.stream.synchronize()?;
        block.copy_from_slice(&self.io);
        Ok(ran)
    }
}
