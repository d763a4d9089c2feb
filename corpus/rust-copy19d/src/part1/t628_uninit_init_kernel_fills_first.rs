//! case: a Jacobi solver allocates its grid with unsafe alloc, fills it with a boundary-condition kernel, then launches a relaxation kernel that only loads it.
//! expect: none
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const JACOBI_SRC: &str = r#"
extern "C" __global__ void init_grid(float* g, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < w * h) {
        int x = i % w, y = i / w;
        g[i] = (x == 0 || y == 0 || x == w - 1 || y == h - 1) ? 100.0f : 0.0f;
    }
}
extern "C" __global__ void relax(const float* g, float* next, int w, int h) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= w * h) return;
    int x = i % w, y = i / w;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1) { next[i] = g[i]; return; }
    next[i] = 0.25f * (g[i - 1] + g[i + 1] + g[i - w] + g[i + w]);
}
"#;

const W: usize = 512;
const H: usize = 512;

pub fn one_jacobi_step() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(JACOBI_SRC)?)?;
    let init = module.load_function("init_grid")?;
    let relax = module.load_function("relax")?;
    let mut d_grid = unsafe { stream.alloc::<f32>(W * H) }?;
    let mut d_next = unsafe { stream.alloc::<f32>(W * H) }?;
    let (w, h) = (W as i32, H as i32);
    let cfg = LaunchConfig::for_num_elems((W * H) as u32);
    unsafe { stream.launch_builder(&init).arg(&mut d_grid).arg(&w).arg(&h).launch(cfg) }?;
    unsafe { stream.launch_builder(&relax).arg(&d_grid).arg(&mut d_next).arg(&w).arg(&h).launch(cfg) }?;
    Ok(stream.clone_dtoh(&d_next)?)
}
