//! case: a blur kernel writes d_dst, but the copy back reads d_src (a copy-paste of the upload's pointer); d_dst is freed unread
//! expect: unread_kernel_output=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;

const W: usize = 64;
const H: usize = 64;
const BYTES: usize = W * H * 4;

const BLUR_SRC: &str = r#"
extern "C" __global__ void box_blur(const float* src, float* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float acc = 0.0f; int cnt = 0;
    for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx) {
            int xx = x + dx, yy = y + dy;
            if (xx >= 0 && xx < w && yy >= 0 && yy < h) { acc += src[yy * w + xx]; ++cnt; }
        }
    dst[y * w + x] = acc / cnt;
}
"#;

pub fn blur(img: &[f32; W * H]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(BLUR_SRC)?)?.load_function("box_blur")?;

    let mut out = vec![0.0f32; W * H];
    let (mut d_src, mut d_dst): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut rcs = Vec::new();
    unsafe {
        rcs.push(sys::cuMemAlloc_v2(&mut d_src, BYTES));
        rcs.push(sys::cuMemAlloc_v2(&mut d_dst, BYTES));
        rcs.push(sys::cuMemcpyHtoD_v2(d_src, img.as_ptr() as *const c_void, BYTES));
    }
    let (w, h) = (W as i32, H as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&d_src).arg(&d_dst).arg(&w).arg(&h);
    let cfg = LaunchConfig { grid_dim: (W as u32 / 16, H as u32 / 16, 1), block_dim: (16, 16, 1), shared_mem_bytes: 0 };
    let launched = unsafe { b.launch(cfg) };
    unsafe {
        rcs.push(sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d_src, BYTES));
        rcs.push(sys::cuMemFree_v2(d_src));
        rcs.push(sys::cuMemFree_v2(d_dst)); // EXPECT: unread_kernel_output
    }
    launched?;
    if rcs.iter().any(|r| *r != CUresult::CUDA_SUCCESS) {
        return Err("blur failed".into());
    }
    Ok(out)
}
