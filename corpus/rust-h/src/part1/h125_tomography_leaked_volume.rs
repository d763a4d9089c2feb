//! case: filtered back-projection that hands the reconstructed volume out as a raw device pointer (`CudaSlice::leak`) wrapped in a `RawVolume`; its `voxel_checksum` synchronizes and then builds a host slice over the device address with `slice::from_raw_parts`: a host read of device memory; the wrapper's `Drop` frees the pointer with `cuMemFree` after synchronizing, which is right for it
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BACKPROJECT_SRC: &str = r#"
extern "C" __global__ void backproject(const float* sino, float* vol, int n, int n_angles, int n_det) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y, z = blockIdx.z;
    if (x >= n) return;
    float cx = x - 0.5f * n, cy = y - 0.5f * n, acc = 0.f;
    for (int a = 0; a < n_angles; ++a) {
        float th = 3.14159265f * a / n_angles;
        int d = (int)(cx * __cosf(th) + cy * __sinf(th) + 0.5f * n_det);
        if (d >= 0 && d < n_det) acc += sino[(z * n_angles + a) * n_det + d];
    }
    vol[(z * n + y) * n + x] = acc * 3.14159265f / n_angles;
}
"#;

/// A reconstructed volume owned as a raw device allocation, for the renderer's C API.
pub struct RawVolume {
    ptr: sys::CUdeviceptr,
    len: usize,
    stream: Arc<CudaStream>,
}

impl RawVolume {
    fn from_slice(slice: CudaSlice<f32>) -> Self {
        let len = slice.len();
        let stream = slice.stream().clone();
        Self { ptr: slice.leak(), len, stream }
    }

    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.ptr
    }

    /// Cheap integrity check logged next to the reconstruction parameters.
    pub fn voxel_checksum(&self) -> Result<f64, DriverError> {
        self.stream.synchronize()?;
        let voxels = unsafe { std::slice::from_raw_parts(self.ptr as *const f32, self.len) }; // EXPECT: host_deref_device_ptr
        Ok(voxels.iter().map(|&v| v as f64).sum())
    }
}

impl Drop for RawVolume {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = result::free_sync(self.ptr);
        }
    }
}

pub struct Reconstructor {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
}

impl Reconstructor {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_module(compile_ptx(BACKPROJECT_SRC)?)?.load_function("backproject")?,
        })
    }

    /// `sinogram` is already on the device: [slice][angle][detector].
    pub fn reconstruct(&self, sinogram: &CudaSlice<f32>, n: usize, n_angles: usize, n_det: usize) -> Result<(RawVolume, f64), DriverError> {
        let mut volume = self.stream.alloc_zeros::<f32>(n * n * n)?;
        let (ni, na, nd) = (n as i32, n_angles as i32, n_det as i32);
        let cfg = LaunchConfig { grid_dim: ((n as u32).div_ceil(128), n as u32, n as u32), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(sinogram).arg(&mut volume).arg(&ni).arg(&na).arg(&nd);
        unsafe { launch.launch(cfg) }?;
        let raw = RawVolume::from_slice(volume);
        let checksum = raw.voxel_checksum()?;
        Ok((raw, checksum))
    }
}
