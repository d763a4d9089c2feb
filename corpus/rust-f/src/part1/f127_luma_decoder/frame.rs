use std::error::Error;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use super::alloc::host_alloc;

const DECODE_SRC: &str = r#"
extern "C" __global__ void synth_decode(unsigned char* y_plane, unsigned int w, unsigned int h, unsigned int frame)
{
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x < w && y < h) y_plane[y * w + x] = (unsigned char)((x + y + 3 * frame) & 0xff);
}
"#;

/// A luma plane in host memory.
pub struct DecodedFrame {
    pixels: *mut u8,
    len: usize,
}

impl DecodedFrame {
    pub fn as_bytes(&self) -> &[u8] {
        unsafe { std::slice::from_raw_parts(self.pixels, self.len) }
    }

    pub fn mean(&self) -> f64 {
        self.as_bytes().iter().map(|&p| p as f64).sum::<f64>() / self.len as f64
    }
}

impl Drop for DecodedFrame {
    fn drop(&mut self) {
        unsafe { libc::free(self.pixels.cast()) }; // EXPECT: mismatched_free
    }
}

pub struct Decoder {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    width: u32,
    height: u32,
}

impl Decoder {
    pub fn new(ctx: &Arc<CudaContext>, width: u32, height: u32) -> Result<Self, Box<dyn Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_module(compile_ptx(DECODE_SRC)?)?.load_function("synth_decode")?,
            width,
            height,
        })
    }

    pub fn decode(&self, index: u32) -> Result<DecodedFrame, Box<dyn Error>> {
        let len = (self.width * self.height) as usize;
        let mut plane = self.stream.alloc_zeros::<u8>(len)?;
        let cfg = LaunchConfig { grid_dim: (self.width.div_ceil(256), self.height, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&mut plane)
                .arg(&self.width)
                .arg(&self.height)
                .arg(&index)
                .launch(cfg)?;
        }
        let frame = DecodedFrame { pixels: host_alloc(len)?, len };
        {
            let (src, _record) = plane.device_ptr(&self.stream);
            unsafe { sys::cuMemcpyDtoHAsync_v2(frame.pixels.cast(), src, len, self.stream.cu_stream()).result()? };
        }
        self.stream.synchronize()?;
        Ok(frame)
    }
}
