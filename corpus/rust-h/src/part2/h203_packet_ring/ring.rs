use cuda_lint_runtime::{Context, PinnedBuffer, Result};

/// Fixed-size slots of page-locked memory: one frame per slot, plus one verdict per slot.
pub struct PacketRing {
    frames: PinnedBuffer<u8>,
    verdicts: PinnedBuffer<u32>,
    mtu: usize,
}

impl PacketRing {
    pub fn new(ctx: &Context, slots: usize, mtu: usize) -> Result<Self> {
        Ok(Self {
            frames: ctx.alloc_pinned::<u8>(slots * mtu)?,
            verdicts: ctx.alloc_pinned::<u32>(slots)?,
            mtu,
        })
    }

    pub fn slots(&self) -> usize {
        self.verdicts.len()
    }

    /// Copies up to `slots()` frames into their slots (truncated to the MTU); returns how many.
    pub fn stage(&mut self, frames: &[&[u8]]) -> usize {
        let mtu = self.mtu;
        let mut staged = 0;
        for (slot, frame) in self.frames.chunks_mut(mtu).zip(frames.iter()) {
            let len = frame.len().min(mtu);
            slot[..len].copy_from_slice(&frame[..len]);
            slot[len..].fill(0);
            staged += 1;
        }
        staged
    }

    pub fn frames(&self) -> &[u8] {
        &self.frames
    }

    pub fn verdicts(&self) -> &[u32] {
        &self.verdicts
    }

    pub fn verdicts_mut(&mut self) -> &mut [u32] {
        &mut self.verdicts
    }
}
