//! case: the same chunked upload through a ring of pinned staging slots (runtime layer), but each slot records an event after its copy and a slot that was used before waits on its event before it is refilled
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Event, PinnedBuffer, Result, Stream};

const CHUNK: usize = 2 << 20;

struct Slot {
    buf: PinnedBuffer<u8>,
    copied: Event,
    in_use: bool,
}

impl Slot {
    /// Blocks until the last upload from this slot has finished reading it.
    fn reclaim(&mut self) -> Result<&mut [u8]> {
        if self.in_use {
            self.copied.synchronize()?;
            self.in_use = false;
        }
        Ok(&mut self.buf[..])
    }
}

pub struct WeightLoader {
    stream: Stream,
    ring: Vec<Slot>,
}

impl WeightLoader {
    pub fn new(ctx: &Context, depth: usize) -> Result<Self> {
        let ring = (0..depth)
            .map(|_| -> Result<Slot> {
                Ok(Slot { buf: ctx.alloc_pinned::<u8>(CHUNK)?, copied: ctx.new_event()?, in_use: false })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Self { stream: ctx.new_stream()?, ring })
    }

    pub fn load(&mut self, shards: &[&[u8]], dst: &mut [DeviceBuffer<u8>]) -> Result<usize> {
        let depth = self.ring.len();
        let mut bytes = 0;
        let pieces = shards.iter().flat_map(|s| s.chunks(CHUNK));
        for (k, (piece, dev)) in pieces.zip(dst.iter_mut()).enumerate() {
            let slot = &mut self.ring[k % depth];
            let staging = slot.reclaim()?;
            staging[..piece.len()].copy_from_slice(piece);
            unsafe { self.stream.copy_htod_async(dev, &slot.buf[..piece.len()])? };
            self.stream.record_event(&slot.copied)?;
            slot.in_use = true;
            bytes += piece.len();
        }
        self.stream.synchronize()?;
        Ok(bytes)
    }
}
