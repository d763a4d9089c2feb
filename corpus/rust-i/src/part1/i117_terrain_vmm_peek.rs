//! case: hydraulic-erosion terrain simulation keeps its heightfield in a VMM mapping (runtime layer) so it can be remapped larger later; a debug "peek" reads the first height sample through the mapping's device pointer with ptr::read on the host
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const EROSION_SRC: &str = r#"
extern "C" __global__ void erode(float* height, int w, int h, float rate) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x <= 0 || y <= 0 || x >= w - 1 || y >= h - 1) return;
    float c = height[y*w+x];
    float m = fminf(fminf(height[y*w+x-1], height[y*w+x+1]), fminf(height[(y-1)*w+x], height[(y+1)*w+x]));
    if (c > m) height[y*w+x] = c - rate * (c - m);
}
"#;

pub struct Terrain {
    pub w: usize,
    pub h: usize,
    stream: Stream,
    erode: Kernel,
    _physical: PhysicalAllocation,
    heights: Mapping,
}

fn round_up(bytes: usize, gran: usize) -> usize {
    bytes.div_ceil(gran) * gran
}

impl Terrain {
    pub fn new(ctx: &Context, w: usize, h: usize, initial: &PinnedBuffer<f32>) -> Result<Self> {
        let size = round_up(w * h * 4, ctx.vmm_granularity()?);
        let physical = PhysicalAllocation::new(ctx, size)?;
        let range = VirtualRange::reserve(ctx, size)?;
        let heights = range.map(&physical, 0)?;
        let stream = ctx.new_stream()?;
        // Upload the initial heights through a temporary device buffer, then copy device-to-device
        // into the mapping with a kernel-free memcpy.
        let staging = stream.clone_htod(&initial[..w * h])?;
        unsafe {
            cudarc::driver::sys::cuMemcpyDtoDAsync_v2(heights.device_ptr().as_raw(), staging.device_ptr().as_raw(), w * h * 4, stream.as_raw())
                .result()
                .map_err(|_| cuda_lint_runtime::Error::Unsupported { what: "dtod into mapping".into() })?;
        }
        stream.synchronize()?;
        Ok(Self { w, h, stream, erode: ctx.load_cuda(EROSION_SRC)?.function("erode")?, _physical: physical, heights })
    }

    pub fn erode(&mut self, iterations: usize, rate: f32) -> Result<()> {
        let (w, h) = (self.w as i32, self.h as i32);
        let cfg = LaunchConfig { grid: ((self.w as u32).div_ceil(128), self.h as u32, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        for _ in 0..iterations {
            unsafe { self.stream.launch(&self.erode, cfg, &[&self.heights, &w, &h, &rate])? };
        }
        self.stream.synchronize()
    }

    /// Debug helper used from the REPL: the height at the origin corner.
    pub fn peek_origin(&self) -> Result<f32> {
        self.stream.synchronize()?;
        let p = self.heights.device_ptr().as_raw() as *const f32;
        Ok(unsafe { std::ptr::read(p) }) // EXPECT: host_deref_device_ptr
    }
}
