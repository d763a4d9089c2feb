//! case: stereo block-matching depth estimation with cudarc; the disparity map is read back into `ctx.alloc_pinned` memory (CU_MEMHOSTALLOC_WRITECOMBINED in cudarc 0.19.10) and the host filters and converts it to depth after stream.synchronize()
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SAD_SRC: &str = r#"
extern "C" __global__ void sad_disparity(const unsigned char* l, const unsigned char* r, float* disp, int w, int h, int max_d) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    int best = 0; unsigned best_cost = 0xffffffffu;
    for (int d = 0; d < max_d && x - d >= 2; ++d) {
        unsigned c = 0;
        for (int k = -2; k <= 2; ++k) c += abs((int)l[y * w + x + k] - (int)r[y * w + x - d + k]);
        if (c < best_cost) { best_cost = c; best = d; }
    }
    disp[y * w + x] = (float)best;
}
"#;

pub struct StereoRig {
    pub focal_px: f32,
    pub baseline_m: f32,
}

pub struct DepthEstimator {
    stream: Arc<CudaStream>,
    sad: CudaFunction,
    w: usize,
    h: usize,
    left_host: PinnedHostSlice<u8>,
    right_host: PinnedHostSlice<u8>,
    disp_host: PinnedHostSlice<f32>,
    left: CudaSlice<u8>,
    right: CudaSlice<u8>,
    disp: CudaSlice<f32>,
}

impl DepthEstimator {
    pub fn new(ctx: &Arc<CudaContext>, w: usize, h: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            sad: ctx.load_module(compile_ptx(SAD_SRC)?)?.load_function("sad_disparity")?,
            w,
            h,
            left_host: unsafe { ctx.alloc_pinned_with_flags::<u8>(w * h, 0)? },
            right_host: unsafe { ctx.alloc_pinned_with_flags::<u8>(w * h, 0)? },
            disp_host: unsafe { ctx.alloc_pinned::<f32>(w * h)? },
            left: stream.alloc_zeros::<u8>(w * h)?,
            right: stream.alloc_zeros::<u8>(w * h)?,
            disp: stream.alloc_zeros::<f32>(w * h)?,
            stream,
        })
    }

    pub fn depth(&mut self, left: &[u8], right: &[u8], rig: &StereoRig, max_disp: i32) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
        self.left_host.as_mut_slice()?.copy_from_slice(left);
        self.right_host.as_mut_slice()?.copy_from_slice(right);
        self.stream.memcpy_htod(&self.left_host, &mut self.left)?;
        self.stream.memcpy_htod(&self.right_host, &mut self.right)?;
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid_dim: ((w as u32).div_ceil(64), h as u32, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch_builder(&self.sad).arg(&self.left).arg(&self.right).arg(&mut self.disp).arg(&w).arg(&h).arg(&max_disp).launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.disp, &mut self.disp_host)?;
        self.stream.synchronize()?;

        let fb = rig.focal_px * rig.baseline_m;
        let depth = self.disp_host.as_slice()?.iter().map(|&d| if d > 0.5 { fb / d } else { f32::INFINITY }).collect(); // EXPECT: write_combined_host_read
        Ok(depth)
    }
}
