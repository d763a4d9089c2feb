//! case: cudarc image analytics: a blur kernel runs on the auxiliary stream over device slices while the host clears a unified (managed, attach-global) histogram that only the later histogram kernel on the main stream uses
//! expect: managed_concurrent_access=1
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void box_blur(const unsigned char* src, unsigned char* dst, unsigned int w, unsigned int h) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    unsigned int acc = 0, cnt = 0;
    for (int dy = -1; dy <= 1; ++dy) for (int dx = -1; dx <= 1; ++dx) {
        int xx = (int)x + dx, yy = (int)y + dy;
        if (xx >= 0 && yy >= 0 && xx < (int)w && yy < (int)h) { acc += src[yy * w + xx]; ++cnt; }
    }
    dst[y * w + x] = (unsigned char)(acc / cnt);
}
extern "C" __global__ void histogram(const unsigned char* img, unsigned int n, unsigned int* hist) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[img[i]], 1u);
}
"#;

pub struct Analytics {
    ctx: Arc<CudaContext>,
    main: Arc<CudaStream>,
    aux: Arc<CudaStream>,
    blur: CudaFunction,
    hist_k: CudaFunction,
    hist: UnifiedSlice<u32>,
}

impl Analytics {
    pub fn new() -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let main = ctx.new_stream()?;
        let aux = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(SRC)?)?;
        let hist = unsafe { ctx.alloc_unified::<u32>(256, true) }?;
        Ok(Analytics { blur: module.load_function("box_blur")?, hist_k: module.load_function("histogram")?, hist, main, aux, ctx })
    }

    /// Blurs `frame` (w x h) into `blurred` and returns the histogram of the original frame.
    pub fn analyze(&mut self, frame: &CudaSlice<u8>, blurred: &mut CudaSlice<u8>, w: u32, h: u32) -> Res<Vec<u32>> {
        let cfg2d = LaunchConfig { grid_dim: (w.div_ceil(128), h, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.aux.launch_builder(&self.blur).arg(frame).arg(&mut *blurred).arg(&w).arg(&h).launch(cfg2d)?;
        }
        // Reset the bins while the blur runs.
        self.hist.as_mut_slice()?.fill(0); // EXPECT: managed_concurrent_access
        let n = w * h;
        unsafe {
            self.main.launch_builder(&self.hist_k).arg(frame).arg(&n).arg(&mut self.hist).launch(LaunchConfig::for_num_elems(n))?;
        }
        self.aux.synchronize()?;
        self.main.synchronize()?;
        Ok(self.hist.as_slice()?.to_vec())
    }
}
