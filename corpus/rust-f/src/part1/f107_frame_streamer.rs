//! case: a video frame streamer page-locks its input `Vec` with `cuMemHostRegister` and decodes the next frame into it while the previous frame's upload may still be reading it (registered memory is pinned: the copy is in flight until the stream is done); its `Drop` also "unregisters" the readback buffer, which came from `cuMemAllocHost` and was never registered
//! expect: missing_sync=1, mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const LUMA_SRC: &str = r#"
extern "C" __global__ void rgb_to_luma(const unsigned char* rgb, float* luma, unsigned int pixels)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < pixels) luma[i] = 0.299f * rgb[3 * i] + 0.587f * rgb[3 * i + 1] + 0.114f * rgb[3 * i + 2];
}
"#;

pub struct FrameStreamer {
    ctx: Arc<CudaContext>,
    kernel: CudaFunction,
    stream: CUstream,
    pixels: usize,
    input: Vec<u8>,
    d_rgb: CUdeviceptr,
    d_luma: CUdeviceptr,
    /// Pinned readback: one luma plane per frame of a batch.
    luma_host: *mut f32,
    batch: usize,
}

impl FrameStreamer {
    pub fn new(width: usize, height: usize, batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let kernel = ctx.load_module(compile_ptx(LUMA_SRC)?)?.load_function("rgb_to_luma")?;
        let pixels = width * height;
        let mut input = vec![0u8; 3 * pixels];
        let mut stream: CUstream = null_mut();
        let (mut d_rgb, mut d_luma): (CUdeviceptr, CUdeviceptr) = (0, 0);
        let mut luma_host: *mut c_void = null_mut();
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemHostRegister_v2(input.as_mut_ptr().cast(), input.len(), 0).result()?;
            sys::cuMemAlloc_v2(&mut d_rgb, 3 * pixels).result()?;
            sys::cuMemAlloc_v2(&mut d_luma, 4 * pixels).result()?;
            sys::cuMemAllocHost_v2(&mut luma_host, 4 * pixels * batch).result()?;
        }
        Ok(Self { ctx, kernel, stream, pixels, input, d_rgb, d_luma, luma_host: luma_host.cast(), batch })
    }

    /// Converts up to `batch` frames; `decode` fills the RGB bytes of frame `i`.
    pub fn convert<F: FnMut(usize, &mut [u8])>(&mut self, frames: usize, mut decode: F) -> Result<Vec<f32>, DriverError> {
        let frames = frames.min(self.batch);
        let mut pixels = self.pixels as u32;
        for i in 0..frames {
            decode(i, &mut self.input); // EXPECT: missing_sync
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(self.d_rgb, self.input.as_ptr().cast(), self.input.len(), self.stream).result()?;
                let mut args = [
                    (&mut self.d_rgb) as *mut CUdeviceptr as *mut c_void,
                    (&mut self.d_luma) as *mut CUdeviceptr as *mut c_void,
                    (&mut pixels) as *mut u32 as *mut c_void,
                ];
                sys::cuLaunchKernel(
                    self.kernel.cu_function(),
                    pixels.div_ceil(256),
                    1,
                    1,
                    256,
                    1,
                    1,
                    0,
                    self.stream,
                    args.as_mut_ptr(),
                    null_mut(),
                )
                .result()?;
                let dst = self.luma_host.add(i * self.pixels);
                sys::cuMemcpyDtoHAsync_v2(dst.cast(), self.d_luma, 4 * self.pixels, self.stream).result()?;
            }
        }
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        let planes = unsafe { std::slice::from_raw_parts(self.luma_host, frames * self.pixels) };
        Ok(planes.chunks(self.pixels).map(|p| p.iter().sum::<f32>() / p.len() as f32).collect())
    }
}

impl Drop for FrameStreamer {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemHostUnregister(self.input.as_mut_ptr().cast());
            let _ = sys::cuMemHostUnregister(self.luma_host.cast()); // EXPECT: mismatched_free
            let _ = sys::cuMemFree_v2(self.d_rgb);
            let _ = sys::cuMemFree_v2(self.d_luma);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let mut streamer = FrameStreamer::new(1920, 1080, 8)?;
    let means = streamer.convert(8, |i, rgb| rgb.iter_mut().enumerate().for_each(|(k, b)| *b = ((k + i * 7) % 251) as u8))?;
    println!("mean luma per frame: {means:?}");
    Ok(())
}
