//! case: visual-inertial odometry front end on cudarc's safe API: corner scoring of each camera frame runs on the vision stream, and meanwhile the host stages the IMU samples into a UnifiedSlice from alloc_unified(.., true) (globally attached) that only the preintegration kernel on the IMU stream reads; as_mut_slice waits only for the ring's own event, not for the vision kernel
//! expect: managed_concurrent_access=1

mod imu;
mod vision;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DriverError, PinnedHostSlice};

pub use imu::{ImuSample, Preintegrator};
pub use vision::CornerDetector;

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub struct FrontEnd {
    ctx: Arc<CudaContext>,
    vision: CornerDetector,
    imu: Preintegrator,
    scores_host: PinnedHostSlice<f32>,
    delta_host: PinnedHostSlice<f32>,
}

impl FrontEnd {
    pub fn new(w: u32, h: u32, max_imu: usize) -> Result<Self> {
        let ctx = CudaContext::new(0)?;
        let vision_stream = ctx.new_stream()?;
        let imu_stream = ctx.new_stream()?;
        let vmod = ctx.load_module(cudarc::nvrtc::compile_ptx(vision::VISION_SRC)?)?;
        let imod = ctx.load_module(cudarc::nvrtc::compile_ptx(imu::IMU_SRC)?)?;
        let ring = unsafe { ctx.alloc_unified::<f32>(4 * max_imu, true)? };
        let scores = vision_stream.alloc_zeros::<f32>((w * h) as usize)?;
        let delta = imu_stream.alloc_zeros::<f32>(3)?;
        let scores_host = unsafe { ctx.alloc_pinned_with_flags::<f32>((w * h) as usize, 0)? };
        let delta_host = unsafe { ctx.alloc_pinned_with_flags::<f32>(3, 0)? };
        Ok(Self {
            scores_host,
            delta_host,
            vision: CornerDetector { stream: vision_stream, kernel: vmod.load_function("corner_score")?, scores, w, h },
            imu: Preintegrator { stream: imu_stream, kernel: imod.load_function("preintegrate")?, ring, delta },
            ctx,
        })
    }

    /// One camera frame with the IMU samples since the previous frame; returns the rotation
    /// increment and the number of corner candidates.
    pub fn track(&mut self, frame: &CudaSlice<u8>, samples: &[ImuSample]) -> std::result::Result<([f32; 3], usize), DriverError> {
        self.vision.enqueue(frame)?;
        let n = self.imu.stage(samples)?;
        self.imu.enqueue(n)?;
        self.imu.stream.memcpy_dtoh(&self.imu.delta, &mut self.delta_host)?;
        self.vision.stream.memcpy_dtoh(&self.vision.scores, &mut self.scores_host)?;
        self.ctx.synchronize()?;
        let corners = self.scores_host.as_slice()?.iter().filter(|&&s| s > 0.0).count();
        let d = self.delta_host.as_slice()?;
        Ok(([d[0], d[1], d[2]], corners))
    }
}
