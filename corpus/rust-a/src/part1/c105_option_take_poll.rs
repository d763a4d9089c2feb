//! case: a frame grabber keeps its pending readback in an Option; poll() takes it, waits on the blocking path, but the non-blocking path peeks at the pinned buffer while the copy may still run
//! expect: missing_sync=1
use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct FrameGrabber {
    stream: Stream,
    frame: DeviceBuffer<u8>,
    pending: Option<PinnedBuffer<u8>>,
}

fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().map(|&b| b as u64).sum()
}

impl FrameGrabber {
    pub fn new(ctx: &Context, bytes: usize) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, frame: ctx.alloc_zeroed(bytes)?, pending: None })
    }

    pub fn request(&mut self, ctx: &Context) -> Result<()> {
        let mut host = match self.pending.take() {
            Some(old) => {
                self.stream.synchronize()?; // the previous readback into `old` must be over
                old
            }
            None => ctx.alloc_pinned::<u8>(self.frame.len())?,
        };
        // SAFETY: `host` is owned by `pending` until poll() hands out its contents.
        unsafe { self.stream.copy_dtoh_async(&mut host, &self.frame)? };
        self.pending = Some(host);
        Ok(())
    }

    pub fn poll(&mut self, blocking: bool) -> Result<Option<u64>> {
        let Some(host) = self.pending.take() else { return Ok(None) };
        if blocking {
            self.stream.synchronize()?;
            let sum = checksum(&host);
            self.pending = Some(host);
            return Ok(Some(sum));
        }
        let peek = host.iter().take(64).map(|&b| b as u64).sum(); // EXPECT: missing_sync
        let host = self.pending.insert(host);
        let _ = host.len();
        Ok(Some(peek))
    }
}

impl Drop for FrameGrabber {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
    }
}
