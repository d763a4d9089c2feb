//! case: IMU/camera sensor fusion with cudarc: the calibration constants live in a UnifiedSlice allocated with attach_global = true; while the feature-extraction kernel (which does not use them) runs on the vision stream, the host updates the calibration through as_mut_slice, which only waits for work that used the calibration itself
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const FUSION_SRC: &str = r#"
extern "C" __global__ void harris_response(const float* gray, float* response, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    float ix = gray[y*w+x+1] - gray[y*w+x-1], iy = gray[(y+1)*w+x] - gray[(y-1)*w+x];
    float a = ix*ix, b = iy*iy, c = ix*iy;
    response[y*w+x] = a*b - c*c - 0.04f * (a+b)*(a+b);
}
extern "C" __global__ void correct_imu(float* gyro, const float* calib, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    gyro[3*i]   = (gyro[3*i]   - calib[0]) * calib[3];
    gyro[3*i+1] = (gyro[3*i+1] - calib[1]) * calib[4];
    gyro[3*i+2] = (gyro[3*i+2] - calib[2]) * calib[5];
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct ImuCalibration {
    pub bias: [f32; 3],
    pub scale: [f32; 3],
}

pub struct FusionFrontEnd {
    vision: Arc<CudaStream>,
    inertial: Arc<CudaStream>,
    harris: CudaFunction,
    correct: CudaFunction,
    calib: UnifiedSlice<f32>,
}

impl FusionFrontEnd {
    pub fn new(ctx: &Arc<CudaContext>, initial: ImuCalibration) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(FUSION_SRC)?)?;
        let mut calib = unsafe { ctx.alloc_unified::<f32>(6, true)? };
        write_calib(calib.as_mut_slice()?, &initial);
        Ok(Self {
            vision: ctx.new_stream()?,
            inertial: ctx.new_stream()?,
            harris: module.load_function("harris_response")?,
            correct: module.load_function("correct_imu")?,
            calib,
        })
    }

    pub fn process(
        &mut self,
        gray: &CudaSlice<f32>,
        response: &mut CudaSlice<f32>,
        (w, h): (i32, i32),
        gyro: &mut CudaSlice<f32>,
        new_calib: Option<ImuCalibration>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let cfg = LaunchConfig { grid_dim: ((w as u32).div_ceil(128), h as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe { self.vision.launch_builder(&self.harris).arg(gray).arg(response).arg(&w).arg(&h).launch(cfg)? };

        // An online calibration update arrived from the estimator thread.
        if let Some(c) = new_calib {
            write_calib(self.calib.as_mut_slice()?, &c); // EXPECT: managed_concurrent_access
        }

        let n = (gyro.len() / 3) as u32;
        unsafe { self.inertial.launch_builder(&self.correct).arg(gyro).arg(&self.calib).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        self.inertial.synchronize()?;
        self.vision.synchronize()?;
        Ok(())
    }
}

fn write_calib(dst: &mut [f32], c: &ImuCalibration) {
    dst[..3].copy_from_slice(&c.bias);
    dst[3..].copy_from_slice(&c.scale);
}
