//! case: IMU/GNSS fusion keeps the sensor calibration in memory from cuMemAllocManaged (global attach) that no kernel takes; right after launching the EKF predict kernel (on device buffers) the host reads the gyro bias from the managed calibration block
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const EKF_SRC: &str = r#"
extern "C" __global__ void ekf_predict(float* x, float* P, const float* u, float dt, int n) {
    int i = threadIdx.x;
    if (i < 3) x[i] += x[i + 3] * dt + 0.5f * u[i] * dt * dt;
    else if (i < 6) x[i] += u[i - 3] * dt;
    __syncthreads();
    if (i < n) P[i * n + i] += 0.01f * dt;
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Calibration {
    pub accel_bias: [f32; 3],
    pub gyro_bias: [f32; 3],
    pub accel_scale: [f32; 3],
    pub temperature_c: f32,
}

pub struct Fusion {
    stream: Arc<CudaStream>,
    predict: CudaFunction,
    state: CudaSlice<f32>,
    cov: CudaSlice<f32>,
    input: CudaSlice<f32>,
    calib: *mut Calibration,
}

impl Fusion {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let mut calib: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocManaged(&mut calib, std::mem::size_of::<Calibration>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32)
                .result()?;
            *(calib as *mut Calibration) = Calibration { accel_scale: [1.0; 3], ..Default::default() };
        }
        Ok(Self {
            predict: ctx.load_module(compile_ptx(EKF_SRC)?)?.load_function("ekf_predict")?,
            state: stream.alloc_zeros(16)?,
            cov: stream.alloc_zeros(256)?,
            input: stream.alloc_zeros(3)?,
            calib: calib as *mut Calibration,
            stream,
        })
    }

    pub fn on_imu(&mut self, accel: [f32; 3], gyro: [f32; 3], dt: f32) -> Result<[f32; 3], DriverError> {
        let mut a = [0f32; 3];
        for k in 0..3 {
            a[k] = accel[k];
        }
        self.stream.memcpy_htod(&a, &mut self.input)?;
        let n = 16i32;
        unsafe {
            self.stream
                .launch_builder(&self.predict)
                .arg(&mut self.state)
                .arg(&mut self.cov)
                .arg(&self.input)
                .arg(&dt)
                .arg(&n)
                .launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 })?;
        }
        // Attitude is propagated on the CPU meanwhile, with the calibrated gyro rate.
        let bias = unsafe { (*self.calib).gyro_bias }; // EXPECT: managed_concurrent_access
        let rate = [gyro[0] - bias[0], gyro[1] - bias[1], gyro[2] - bias[2]];
        self.stream.synchronize()?;
        Ok(rate)
    }
}

impl Drop for Fusion {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            sys::cuMemFree_v2(self.calib as sys::CUdeviceptr);
        }
    }
}
