//! case: an image pipeline decodes each frame into a Vec<u8> of run-time size and uploads it with cudarc's memcpy_htod straight from that Vec
//! expect: pageable_async_copy=1
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

const GRAY_SRC: &str = r#"
extern "C" __global__ void to_gray(const unsigned char* rgb, unsigned char* gray, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) gray[i] = (unsigned char)((rgb[3*i] * 77 + rgb[3*i+1] * 150 + rgb[3*i+2] * 29) >> 8);
}
"#;

pub struct Frame {
    pub width: usize,
    pub height: usize,
    pub rgb: Vec<u8>,
}

pub struct GrayPipeline {
    stream: Arc<CudaStream>,
    to_gray: CudaFunction,
    d_rgb: CudaSlice<u8>,
    d_gray: CudaSlice<u8>,
}

impl GrayPipeline {
    pub fn new(max_pixels: usize) -> Res<Self> {
        let ctx = CudaContext::new(0)?;
        let stream = ctx.new_stream()?;
        let to_gray = ctx.load_module(cudarc::nvrtc::compile_ptx(GRAY_SRC)?)?.load_function("to_gray")?;
        Ok(Self {
            d_rgb: stream.alloc_zeros(max_pixels * 3)?,
            d_gray: stream.alloc_zeros(max_pixels)?,
            stream,
            to_gray,
        })
    }

    pub fn process(&mut self, frame: &Frame) -> Res<()> {
        let n = frame.width * frame.height;
        let mut dst = self.d_rgb.slice_mut(0..n * 3);
        // A pageable Vec as the source: the driver stages it, blocking the host.
        self.stream.memcpy_htod(&frame.rgb, &mut dst)?; // EXPECT: pageable_async_copy
        let n32 = n as u32;
        unsafe {
            self.stream
                .launch_builder(&self.to_gray)
                .arg(&self.d_rgb)
                .arg(&mut self.d_gray)
                .arg(&n32)
                .launch(LaunchConfig::for_num_elems(n32))
        }?;
        Ok(())
    }

    pub fn run<I: IntoIterator<Item = Frame>>(&mut self, frames: I) -> Res<usize> {
        let mut done = 0;
        for f in frames {
            self.process(&f)?;
            done += 1;
        }
        self.stream.synchronize()?;
        Ok(done)
    }
}
