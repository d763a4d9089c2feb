//! case: stereo depth stage downloads each disparity map into host memory from cuMemHostAlloc with CU_MEMHOSTALLOC_WRITECOMBINED, waits for the stream, then back-projects the point cloud on the CPU by reading that write-combined buffer pixel by pixel
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SGM_SRC: &str = r#"
extern "C" __global__ void block_match(const unsigned char* left, const unsigned char* right, float* disparity,
                                       int w, int h, int max_disp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    int best = 0; unsigned int best_cost = 0xffffffffu;
    for (int d = 0; d < max_disp && x - d >= 2; ++d) {
        unsigned int cost = 0;
        for (int k = -2; k <= 2; ++k) cost += abs((int)left[y * w + x + k] - (int)right[y * w + x - d + k]);
        if (cost < best_cost) { best_cost = cost; best = d; }
    }
    disparity[y * w + x] = (float)best;
}
"#;

pub struct Camera {
    pub fx: f32,
    pub cx: f32,
    pub cy: f32,
    pub baseline_m: f32,
}

pub struct DepthStage {
    stream: Arc<CudaStream>,
    matcher: CudaFunction,
    disparity: CudaSlice<f32>,
    host: *mut f32,
    width: usize,
    height: usize,
}

impl DepthStage {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let matcher = ctx.load_module(compile_ptx(SGM_SRC)?)?.load_function("block_match")?;
        let disparity = stream.alloc_zeros::<f32>(width * height)?;
        let host = unsafe { result::malloc_host(width * height * 4, sys::CU_MEMHOSTALLOC_WRITECOMBINED)? } as *mut f32;
        Ok(DepthStage { stream, matcher, disparity, host, width, height })
    }

    pub fn point_cloud(&mut self, left: &CudaSlice<u8>, right: &CudaSlice<u8>, cam: &Camera) -> Result<Vec<[f32; 3]>, DriverError> {
        let (w, h, max_disp) = (self.width as i32, self.height as i32, 128i32);
        let cfg = LaunchConfig { grid_dim: ((self.width as u32).div_ceil(128), self.height as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = self.stream.launch_builder(&self.matcher);
        launch.arg(left).arg(right).arg(&mut self.disparity).arg(&w).arg(&h).arg(&max_disp);
        unsafe { launch.launch(cfg) }?;
        let host = unsafe { std::slice::from_raw_parts_mut(self.host, self.width * self.height) };
        {
            let (src, _record) = self.disparity.device_ptr(&self.stream);
            unsafe { result::memcpy_dtoh_async(host, src, self.stream.cu_stream())? };
        }
        self.stream.synchronize()?;
        let mut cloud = Vec::with_capacity(host.len() / 4);
        for (i, &d) in host.iter().enumerate() { // EXPECT: write_combined_host_read
            if d < 1.0 {
                continue;
            }
            let z = cam.fx * cam.baseline_m / d;
            let (u, v) = ((i % self.width) as f32, (i / self.width) as f32);
            cloud.push([(u - cam.cx) * z / cam.fx, (v - cam.cy) * z / cam.fx, z]);
        }
        Ok(cloud)
    }
}

impl Drop for DepthStage {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = result::free_host(self.host as *mut c_void);
        }
    }
}
