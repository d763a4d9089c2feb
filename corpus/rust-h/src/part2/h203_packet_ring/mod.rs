//! case: packet classifier of a software router; frames are staged into a page-locked ring (runtime `alloc_pinned`, not write-combined), copied asynchronously, classified by a kernel and the verdicts copied back, and the host reads them only after synchronizing an event recorded behind the readback
//! expect: none

mod kernels;
mod ring;

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Result, Stream};

pub use ring::PacketRing;

pub const MTU: usize = 1536;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Forward,
    Drop,
    Mirror,
}

impl From<u32> for Verdict {
    fn from(v: u32) -> Self {
        match v {
            0 => Verdict::Forward,
            2 => Verdict::Mirror,
            _ => Verdict::Drop,
        }
    }
}

pub struct Classifier {
    stream: Stream,
    kernel: Kernel,
    ring: PacketRing,
    dev_frames: DeviceBuffer<u8>,
    dev_verdicts: DeviceBuffer<u32>,
    readback_done: Event,
}

impl Classifier {
    pub fn new(ctx: &Context, slots: usize) -> Result<Self> {
        let stream = ctx.new_stream()?;
        let kernel = kernels::load(ctx)?;
        let ring = PacketRing::new(ctx, slots, MTU)?;
        let dev_frames = ctx.alloc::<u8>(slots * MTU)?;
        let dev_verdicts = ctx.alloc::<u32>(slots)?;
        let readback_done = ctx.new_event()?;
        Ok(Self { stream, kernel, ring, dev_frames, dev_verdicts, readback_done })
    }

    pub fn classify(&mut self, frames: &[&[u8]]) -> Result<Vec<Verdict>> {
        let n = self.ring.stage(frames) as u32;
        let mtu = MTU as u32;
        // SAFETY: the ring is not written again before `readback_done` is synchronized below.
        unsafe { self.stream.copy_htod_async(&mut self.dev_frames, self.ring.frames())? };
        unsafe {
            self.stream.launch(
                &self.kernel,
                LaunchConfig::for_num_elems(n),
                &[&self.dev_frames, &self.dev_verdicts, &mtu, &n],
            )?
        };
        unsafe { self.stream.copy_dtoh_async(self.ring.verdicts_mut(), &self.dev_verdicts)? };
        self.stream.record_event(&self.readback_done)?;
        self.readback_done.synchronize()?;
        Ok(self.ring.verdicts()[..n as usize].iter().map(|&v| Verdict::from(v)).collect())
    }
}
