//! case: progressive path tracer accumulates samples on the device; to decide when to stop it peeks at the device-side sample counter by casting the DeviceBuffer's raw device address to a host pointer (after a synchronize, which does not make it host memory)
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const TRACE_SRC: &str = r#"
__device__ unsigned int wang(unsigned int s) { s = (s ^ 61) ^ (s >> 16); s *= 9; s ^= s >> 4; s *= 0x27d4eb2d; return s ^ (s >> 15); }
extern "C" __global__ void trace_pass(float4* accum, unsigned int* samples, int w, int h, unsigned int frame) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= w || y >= h) return;
    unsigned int seed = wang((y * w + x) ^ (frame * 0x9e3779b9u));
    float r = (seed & 0xffff) / 65535.0f;
    float4 a = accum[y * w + x];
    accum[y * w + x] = make_float4(a.x + r, a.y + r * 0.8f, a.z + r * 0.6f, a.w + 1.0f);
    if (x == 0 && y == 0) atomicAdd(samples, 1u);
}
extern "C" __global__ void resolve(const float4* accum, unsigned char* rgba, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 a = accum[i];
    float inv = a.w > 0.0f ? 1.0f / a.w : 0.0f;
    rgba[4*i] = (unsigned char)(255.0f * fminf(a.x * inv, 1.0f));
    rgba[4*i+1] = (unsigned char)(255.0f * fminf(a.y * inv, 1.0f));
    rgba[4*i+2] = (unsigned char)(255.0f * fminf(a.z * inv, 1.0f));
    rgba[4*i+3] = 255;
}
"#;

pub struct Progressive {
    stream: Stream,
    trace: Kernel,
    resolve: Kernel,
    accum: DeviceBuffer<f32>,
    samples: DeviceBuffer<u32>,
    rgba: DeviceBuffer<u8>,
    frame: u32,
    width: usize,
    height: usize,
}

impl Progressive {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let module = ctx.load_cuda(TRACE_SRC)?;
        Ok(Progressive {
            stream: ctx.new_stream()?,
            trace: module.function("trace_pass")?,
            resolve: module.function("resolve")?,
            accum: ctx.alloc_zeroed(4 * width * height)?,
            samples: ctx.alloc_zeroed(1)?,
            rgba: ctx.alloc_zeroed(4 * width * height)?,
            frame: 0,
            width,
            height,
        })
    }

    /// Traces passes until `target_spp` samples per pixel, then resolves into `out`.
    pub fn render(&mut self, target_spp: u32, out: &mut PinnedBuffer<u8>) -> Result<u32> {
        let (w, h) = (self.width as i32, self.height as i32);
        let cfg = LaunchConfig { grid: ((self.width as u32).div_ceil(64), self.height as u32, 1), block: (64, 1, 1), shared_mem_bytes: 0 };
        loop {
            for _ in 0..8 {
                unsafe { self.stream.launch(&self.trace, cfg, &[&self.accum, &self.samples, &w, &h, &self.frame])? };
                self.frame += 1;
            }
            self.stream.synchronize()?;
            let spp = unsafe { *(self.samples.device_ptr().as_raw() as *const u32) }; // EXPECT: host_deref_device_ptr
            if spp >= target_spp {
                break;
            }
        }
        let n = (self.width * self.height) as i32;
        unsafe {
            self.stream.launch(&self.resolve, LaunchConfig::for_num_elems(n as u32), &[&self.accum, &self.rgba, &n])?;
            self.stream.copy_dtoh_async(out, &self.rgba)?;
        }
        self.stream.synchronize()?;
        Ok(self.frame)
    }
}
