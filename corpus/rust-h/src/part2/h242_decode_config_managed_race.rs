//! case: video analytics service keeps its per-frame decode parameters in cudarc managed memory (`alloc_unified(.., true)`, attached globally); it launches the entropy-decode kernel, which does not use the parameters, and then rewrites them from the host for the post-process kernel while the decode kernel may still be running
//! expect: managed_concurrent_access=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const PIPELINE_SRC: &str = r#"
extern "C" __global__ void entropy_decode(const unsigned char* bits, short* coeffs, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) coeffs[i] = (short)((bits[i] & 0x80) ? -(bits[i] & 0x7f) : bits[i]);
}
extern "C" __global__ void postprocess(const short* coeffs, const float* params, unsigned char* pixels, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = coeffs[i] * params[0] + params[1];
    pixels[i] = (unsigned char)fminf(fmaxf(v, 0.0f), 255.0f);
}
"#;

pub struct FrameParams {
    pub gain: f32,
    pub offset: f32,
}

pub struct DecodePipeline {
    stream: Arc<CudaStream>,
    decode: CudaFunction,
    post: CudaFunction,
    params: UnifiedSlice<f32>,
    coeffs: CudaSlice<i16>,
    pixels: CudaSlice<u8>,
    pixels_host: PinnedHostSlice<u8>,
}

impl DecodePipeline {
    pub fn new(ctx: &Arc<CudaContext>, max_pixels: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(PIPELINE_SRC)?)?;
        Ok(Self {
            decode: module.load_function("entropy_decode")?,
            post: module.load_function("postprocess")?,
            params: unsafe { ctx.alloc_unified::<f32>(2, true)? },
            coeffs: stream.alloc_zeros::<i16>(max_pixels)?,
            pixels: stream.alloc_zeros::<u8>(max_pixels)?,
            pixels_host: unsafe { ctx.alloc_pinned_with_flags::<u8>(max_pixels, 0)? },
            stream,
        })
    }

    pub fn process(&mut self, bitstream: &CudaSlice<u8>, fp: &FrameParams) -> Result<&[u8], DriverError> {
        let n = bitstream.len().min(self.coeffs.len()) as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.stream.launch_builder(&self.decode).arg(bitstream).arg(&mut self.coeffs).arg(&n).launch(cfg)? };
        self.params.as_mut_slice()?.copy_from_slice(&[fp.gain, fp.offset]); // EXPECT: managed_concurrent_access
        unsafe { self.stream.launch_builder(&self.post).arg(&self.coeffs).arg(&self.params).arg(&mut self.pixels).arg(&n).launch(cfg)? };
        self.stream.memcpy_dtoh(&self.pixels, &mut self.pixels_host)?;
        self.stream.synchronize()?;
        Ok(&self.pixels_host.as_slice()?[..n as usize])
    }
}
