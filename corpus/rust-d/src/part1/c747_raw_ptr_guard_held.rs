//! case: a disparity stage passes its output to the kernel as a raw device pointer but keeps the `device_ptr_mut` guard alive until after the launch, so cudarc records the write event after the kernel; the copy stream's `memcpy_dtoh` waits on it and `as_slice` waits for the copy
//! expect: none

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

const SGM_CU: &str = r#"
extern "C" __global__ void census_disparity(const unsigned char* left, const unsigned char* right,
                                            int width, int height, int max_disp, unsigned char* disp) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width || y >= height) return;
    int best = 1 << 30, best_d = 0;
    for (int d = 0; d < max_disp && x - d >= 0; ++d) {
        int cost = abs((int)left[y * width + x] - (int)right[y * width + x - d]);
        if (cost < best) { best = cost; best_d = d; }
    }
    disp[y * width + x] = (unsigned char)best_d;
}
"#;

pub struct DisparityStage {
    compute: Arc<CudaStream>,
    copy: Arc<CudaStream>,
    kernel: CudaFunction,
    disp: CudaSlice<u8>,
    disp_host: PinnedHostSlice<u8>,
    width: i32,
    height: i32,
    max_disp: i32,
}

impl DisparityStage {
    pub fn new(ctx: &Arc<CudaContext>, width: i32, height: i32, max_disp: i32) -> Result<Self, Box<dyn std::error::Error>> {
        let compute = ctx.new_stream()?;
        let copy = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(SGM_CU)?)?.load_function("census_disparity")?;
        let disp = compute.alloc_zeros::<u8>((width * height) as usize)?;
        let disp_host = unsafe { ctx.alloc_pinned_with_flags::<u8>((width * height) as usize, 0)? };
        Ok(Self { compute, copy, kernel, disp, disp_host, width, height, max_disp })
    }

    pub fn run(&mut self, left: &CudaSlice<u8>, right: &CudaSlice<u8>) -> Result<u64, DriverError> {
        let cfg = LaunchConfig { grid_dim: ((self.width as u32).div_ceil(128), self.height as u32, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        {
            let (disp_ptr, _record_write) = self.disp.device_ptr_mut(&self.compute);
            unsafe {
                self.compute
                    .launch_builder(&self.kernel)
                    .arg(left)
                    .arg(right)
                    .arg(&self.width)
                    .arg(&self.height)
                    .arg(&self.max_disp)
                    .arg(&disp_ptr)
                    .launch(cfg)?;
            }
        } // `_record_write` drops here: the write event now covers the kernel
        self.copy.memcpy_dtoh(&self.disp, &mut self.disp_host)?;
        Ok(self.disp_host.as_slice()?.iter().map(|&d| d as u64).sum())
    }
}
