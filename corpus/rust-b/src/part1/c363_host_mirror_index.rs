//! case: a device array with a pinned host mirror implements `Index` on the mirror, refreshed with the runtime's blocking copy
//! expect: none
use std::ops::Index;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct Mirrored {
    dev: DeviceBuffer<i32>,
    mirror: PinnedBuffer<i32>,
    stream: Stream,
}

impl Mirrored {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { dev: ctx.alloc_zeroed(n)?, mirror: ctx.alloc_pinned(n)?, stream: ctx.new_stream()? })
    }

    pub fn device(&mut self) -> &mut DeviceBuffer<i32> {
        &mut self.dev
    }

    /// Copies device -> mirror and waits (copy_dtoh is async + synchronize).
    pub fn refresh(&mut self) -> Result<()> {
        self.stream.copy_dtoh(&mut self.mirror, &self.dev)
    }
}

impl Index<usize> for Mirrored {
    type Output = i32;
    fn index(&self, i: usize) -> &i32 {
        &self.mirror[i]
    }
}

pub fn count_negative(m: &mut Mirrored) -> Result<usize> {
    m.refresh()?;
    Ok((0..m.mirror.len()).filter(|&i| m[i] < 0).count())
}
