//! case: multi-target Kalman tracker uploads its 6x6 process-noise matrix and each 4-element measurement from stack arrays with cudarc's memcpy_htod, and a fixed 144-byte covariance block with cuMemcpyHtoDAsync_v2 of a constant byte count: copies well under 64 KiB (near-miss for pageable_async_copy)
//! expect: none

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const KF_SRC: &str = r#"
extern "C" __global__ void kf_update(float* x, float* P, const float* Q, const float* z, unsigned tracks) {
    unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= tracks) return;
    /* predict + update for a constant-velocity model (body elided) */
    for (int i = 0; i < 6; ++i) P[t * 36 + i * 7] += Q[i * 7];
    x[t * 6 + 0] += 0.5f * (z[0] - x[t * 6 + 0]);
    x[t * 6 + 1] += 0.5f * (z[1] - x[t * 6 + 1]);
}
"#;

const COV_BYTES: usize = 36 * 4;

pub struct Tracker {
    stream: Arc<CudaStream>,
    update: CudaFunction,
    state: CudaSlice<f32>,
    cov: CudaSlice<f32>,
    q: CudaSlice<f32>,
    z: CudaSlice<f32>,
    tracks: u32,
}

fn process_noise(sigma_a: f32, dt: f32) -> [f32; 36] {
    let mut q = [0.0f32; 36];
    for i in 0..6 {
        q[i * 7] = sigma_a * sigma_a * dt.powi(if i < 3 { 4 } else { 2 }) / 4.0;
    }
    q
}

impl Tracker {
    pub fn new(ctx: &Arc<CudaContext>, tracks: u32, sigma_a: f32, dt: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let update = ctx.load_module(compile_ptx(KF_SRC)?)?.load_function("kf_update")?;
        let mut q = stream.alloc_zeros::<f32>(36)?;
        let q_host = process_noise(sigma_a, dt);
        stream.memcpy_htod(&q_host, &mut q)?;
        Ok(Self {
            state: stream.alloc_zeros::<f32>(tracks as usize * 6)?,
            cov: stream.alloc_zeros::<f32>(tracks as usize * 36)?,
            z: stream.alloc_zeros::<f32>(4)?,
            q,
            stream,
            update,
            tracks,
        })
    }

    /// Resets one track's covariance to a fixed prior.
    pub fn reset_track(&mut self, track: u32, prior: &[f32; 36]) -> Result<(), Box<dyn std::error::Error>> {
        let mut view = self.cov.slice_mut(track as usize * 36..(track as usize + 1) * 36);
        let (dst, _rec) = view.device_ptr_mut(&self.stream);
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, prior.as_ptr().cast(), COV_BYTES, self.stream.cu_stream()).result()? };
        Ok(())
    }

    pub fn step(&mut self, measurement: [f32; 4]) -> Result<(), Box<dyn std::error::Error>> {
        self.stream.memcpy_htod(&measurement, &mut self.z)?;
        unsafe {
            self.stream
                .launch_builder(&self.update)
                .arg(&mut self.state)
                .arg(&mut self.cov)
                .arg(&self.q)
                .arg(&self.z)
                .arg(&self.tracks)
                .launch(LaunchConfig::for_num_elems(self.tracks))?;
        }
        Ok(())
    }

    pub fn positions(&self) -> Result<[f32; 2], Box<dyn std::error::Error>> {
        let mut first = [0.0f32; 6];
        self.stream.memcpy_dtoh(&self.state.slice(0..6), &mut first)?;
        self.stream.synchronize()?;
        Ok([first[0], first[1]])
    }
}
