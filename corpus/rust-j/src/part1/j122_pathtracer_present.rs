//! case: progressive path tracer on the default stream accumulates radiance, queues the D2H copy of the accumulation buffer into pinned memory, and calls `finish_frame`, a helper that synchronizes the stream, before tonemapping the readback on the host
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TRACE_SRC: &str = r#"
extern "C" __global__ void trace(float* accum, int w, int h, int frame, float exposure) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    unsigned int s = (x * 1973u + y * 9277u + frame * 26699u) | 1u;
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    float u = (x + (s & 0xffff) / 65536.0f) / w, v = (y + (s >> 16) / 65536.0f) / h;
    float sky = 0.5f + 0.5f * v;
    float3 c = make_float3(sky * 0.6f, sky * 0.8f, sky);
    float d = (u - 0.5f) * (u - 0.5f) + (v - 0.4f) * (v - 0.4f);
    if (d < 0.04f) c = make_float3(0.9f, 0.3f, 0.2f);
    int i = 3 * (y * w + x);
    accum[i] += c.x * exposure; accum[i + 1] += c.y * exposure; accum[i + 2] += c.z * exposure;
}
"#;

pub struct PathTracer {
    stream: Arc<CudaStream>,
    trace: CudaFunction,
    accum: CudaSlice<f32>,
    readback: PinnedHostSlice<f32>,
    width: usize,
    height: usize,
    frames: u32,
    in_flight: bool,
}

impl PathTracer {
    pub fn new(ctx: &Arc<CudaContext>, width: usize, height: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            trace: ctx.load_module(compile_ptx(TRACE_SRC)?)?.load_function("trace")?,
            accum: stream.alloc_zeros(3 * width * height)?,
            readback: unsafe { ctx.alloc_pinned_with_flags::<f32>(3 * width * height, 0)? },
            stream,
            width,
            height,
            frames: 0,
            in_flight: false,
        })
    }

    fn finish_frame(&mut self) -> Result<(), DriverError> {
        if self.in_flight {
            self.stream.synchronize()?;
            self.in_flight = false;
        }
        self.frames += 1;
        Ok(())
    }

    pub fn render(&mut self, out_srgb: &mut Vec<u8>) -> Result<(), DriverError> {
        let (w, h, f) = (self.width as i32, self.height as i32, self.frames as i32);
        let exposure = 1.0f32;
        let cfg = LaunchConfig {
            grid_dim: ((self.width as u32).div_ceil(8), (self.height as u32).div_ceil(8), 1),
            block_dim: (8, 8, 1),
            shared_mem_bytes: 0,
        };
        unsafe {
            self.stream.launch_builder(&self.trace).arg(&mut self.accum).arg(&w).arg(&h).arg(&f).arg(&exposure).launch(cfg)?;
        }
        self.stream.memcpy_dtoh(&self.accum, &mut self.readback)?;
        self.in_flight = true;
        self.finish_frame()?;

        let inv = 1.0 / self.frames as f32;
        out_srgb.clear();
        out_srgb.extend(self.readback.as_slice()?.iter().map(|&c| {
            let v = (c * inv) / (1.0 + c * inv);
            (v.powf(1.0 / 2.2) * 255.0 + 0.5) as u8
        }));
        Ok(())
    }
}
