//! case: a point-cloud uploader page-locks the caller's Vec in place with register_host and waits before the registration ends
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Result, Stream};

pub struct CloudUploader<'c> {
    ctx: &'c Context,
    stream: Stream,
}

impl<'c> CloudUploader<'c> {
    pub fn new(ctx: &'c Context) -> Result<Self> {
        Ok(Self { ctx, stream: ctx.new_stream()? })
    }

    /// Uploads `points` (page-locked for the duration) into a new device buffer.
    pub fn upload(&self, points: &mut Vec<[f32; 4]>) -> Result<DeviceBuffer<[f32; 4]>> {
        let mut dev = self.ctx.alloc::<[f32; 4]>(points.len())?;
        let locked = self.ctx.register_host(points.as_mut_slice())?;
        // SAFETY: `locked` is neither written nor unregistered before the synchronize.
        unsafe { self.stream.copy_htod_async(&mut dev, &locked)? };
        self.stream.synchronize()?;
        drop(locked);
        Ok(dev)
    }
}

pub fn upload_all(ctx: &Context, clouds: &mut [Vec<[f32; 4]>]) -> Result<Vec<DeviceBuffer<[f32; 4]>>> {
    let up = CloudUploader::new(ctx)?;
    clouds.iter_mut().map(|c| up.upload(c)).collect()
}
