//! case: near-miss of a pageable upload: the decoded video frames live in an ordinary `Vec`, but the uploader page-locks it in place with `register_host` for the duration of the async copy and synchronizes before the registration is dropped
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Result, Stream};

pub struct FrameUploader<'c> {
    ctx: &'c Context,
    stream: Stream,
}

impl<'c> FrameUploader<'c> {
    pub fn new(ctx: &'c Context) -> Result<Self> {
        Ok(Self { ctx, stream: ctx.new_stream()? })
    }

    /// Uploads `frames` (planar Y of `width x height` each) into one device buffer.
    pub fn upload(&self, frames: &mut Vec<u16>, width: usize, height: usize) -> Result<DeviceBuffer<u16>> {
        let plane = width * height;
        if plane == 0 || frames.len() < plane {
            return Err(Error::InvalidArgument { call: "FrameUploader::upload", reason: format!("{} samples is less than one {width}x{height} frame", frames.len()) });
        }
        let count = frames.len() / plane;
        if frames.len() % plane != 0 {
            eprintln!("dropping a partial frame of {} samples", frames.len() % plane);
        }
        let mut dev = self.ctx.alloc::<u16>(count * width * height)?;
        {
            let pinned = self.ctx.register_host(&mut frames[..count * width * height])?;
            unsafe { self.stream.copy_htod_async(&mut dev, &pinned)? };
            self.stream.synchronize()?;
        }
        // the decoder reuses the Vec for the next group of pictures
        frames.clear();
        Ok(dev)
    }
}
