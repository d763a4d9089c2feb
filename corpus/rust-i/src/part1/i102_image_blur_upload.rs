//! case: separable Gaussian blur of RGBA video frames with cudarc: the frame is uploaded from the decoder's Vec<u8> with memcpy_htod (pageable async copy) and the result comes back into ctx.alloc_pinned memory (write-combined in cudarc 0.19.10) that the host reads after synchronizing
//! expect: pageable_async_copy=1, write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLUR_SRC: &str = r#"
extern "C" __global__ void blur_h(const unsigned char* src, unsigned char* dst, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y;
    if (x >= w || y >= h) return;
    for (int c = 0; c < 4; ++c) {
        int acc = 0;
        for (int k = -2; k <= 2; ++k) {
            int xx = min(max(x + k, 0), w - 1);
            acc += src[(y * w + xx) * 4 + c];
        }
        dst[(y * w + x) * 4 + c] = (unsigned char)(acc / 5);
    }
}
"#;

pub struct Frame {
    pub width: u32,
    pub height: u32,
    pub pixels: Vec<u8>,
}

type BoxResult<T> = Result<T, Box<dyn std::error::Error>>;

struct BlurPass {
    stream: Arc<CudaStream>,
    blur: CudaFunction,
}

impl BlurPass {
    fn new(ctx: &Arc<CudaContext>) -> BoxResult<Self> {
        let module = ctx.load_module(compile_ptx(BLUR_SRC)?)?;
        Ok(Self { stream: ctx.new_stream()?, blur: module.load_function("blur_h")? })
    }

    fn cfg(frame: &Frame) -> LaunchConfig {
        LaunchConfig {
            grid_dim: (frame.width.div_ceil(128), frame.height, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        }
    }

    fn upload(&self, frame: &Frame) -> BoxResult<CudaSlice<u8>> {
        let mut dev = self.stream.alloc_zeros::<u8>(frame.pixels.len())?;
        self.stream.memcpy_htod(&frame.pixels, &mut dev)?; // EXPECT: pageable_async_copy
        Ok(dev)
    }
}

pub fn blur_frame(ctx: &Arc<CudaContext>, frame: &Frame) -> BoxResult<Frame> {
    let pass = BlurPass::new(ctx)?;
    let src = pass.upload(frame)?;
    let mut dst = pass.stream.alloc_zeros::<u8>(frame.pixels.len())?;
    let (w, h) = (frame.width as i32, frame.height as i32);
    unsafe {
        pass.stream
            .launch_builder(&pass.blur)
            .arg(&src)
            .arg(&mut dst)
            .arg(&w)
            .arg(&h)
            .launch(BlurPass::cfg(frame))?;
    }

    // Readback staging: cudarc's alloc_pinned passes CU_MEMHOSTALLOC_WRITECOMBINED.
    let mut staging = unsafe { ctx.alloc_pinned::<u8>(frame.pixels.len())? };
    pass.stream.memcpy_dtoh(&dst, &mut staging)?;
    pass.stream.synchronize()?;
    let pixels = staging.as_slice()?.to_vec(); // EXPECT: write_combined_host_read

    Ok(Frame { width: frame.width, height: frame.height, pixels })
}

pub fn blur_sequence(frames: &[Frame]) -> BoxResult<Vec<Frame>> {
    let ctx = CudaContext::new(0)?;
    frames.iter().map(|f| blur_frame(&ctx, f)).collect()
}
