use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, PinnedHostSlice};

use super::stages::Stage;

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

pub struct DenoisePipeline {
    compute: Arc<CudaStream>,
    readback: Arc<CudaStream>,
    stages: Vec<Box<dyn Stage>>,
    d_frame: CudaSlice<f32>,
    h_in: PinnedHostSlice<f32>,
    h_out: PinnedHostSlice<f32>,
    width: usize,
    height: usize,
}

impl DenoisePipeline {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize, stages: Vec<Box<dyn Stage>>) -> BoxResult<Self> {
        // Stream ordering is explicit below; cudarc's per-buffer events are not needed.
        unsafe { ctx.disable_event_tracking() };
        let compute = ctx.new_stream()?;
        let readback = ctx.new_stream()?;
        let pixels = width * height;
        let d_frame = compute.alloc_zeros::<f32>(pixels)?;
        let h_in = unsafe { ctx.alloc_pinned_with_flags::<f32>(pixels, 0)? };
        let h_out = unsafe { ctx.alloc_pinned_with_flags::<f32>(pixels, 0)? };
        compute.synchronize()?;
        Ok(Self { compute, readback, stages, d_frame, h_in, h_out, width, height })
    }

    /// Denoises one frame and returns its mean intensity.
    pub fn process(&mut self, frame: &[f32]) -> BoxResult<f32> {
        self.h_in.as_mut_slice()?.copy_from_slice(frame);
        self.compute.memcpy_htod(&self.h_in, &mut self.d_frame)?;

        let (compute, d_frame, w, h) = (&self.compute, &mut self.d_frame, self.width, self.height);
        self.stages.iter_mut().try_for_each(|stage| stage.enqueue(compute, d_frame, w, h))?;

        let stages_done = self.compute.record_event(None)?;
        self.readback.wait(&stages_done)?;
        self.readback.memcpy_dtoh(&self.d_frame, &mut self.h_out)?;
        self.readback.synchronize()?;

        let out = self.h_out.as_slice()?;
        Ok(out.iter().sum::<f32>() / out.len() as f32)
    }
}
