//! case: a depth-map readback (runtime layer) wraps its async work in an `InFlight` guard whose Drop synchronizes the stream; the guard is dropped at the end of an inner block (also on the `?` paths) before the host reads the pinned depth buffer
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

const DEPTH_SRC: &str = r#"
extern "C" __global__ void disparity_to_depth(const float* disp, float* depth, unsigned int n, float focal_baseline) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) depth[i] = disp[i] > 0.0f ? focal_baseline / disp[i] : 0.0f;
}
"#;

/// Waits for the stream when it goes out of scope, however the scope is left.
struct InFlight<'s> {
    stream: &'s Stream,
}

impl Drop for InFlight<'_> {
    fn drop(&mut self) {
        if let Err(e) = self.stream.synchronize() {
            eprintln!("depth readback: stream sync failed: {e}");
        }
    }
}

pub struct DepthReadback {
    stream: Stream,
    kernel: Kernel,
    depth_dev: DeviceBuffer<f32>,
    depth_host: PinnedBuffer<f32>,
}

impl DepthReadback {
    pub fn new(ctx: &Context, pixels: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(DEPTH_SRC)?.function("disparity_to_depth")?,
            depth_dev: ctx.alloc(pixels)?,
            depth_host: ctx.alloc_pinned(pixels)?,
        })
    }

    /// Median depth of the valid pixels, in meters.
    pub fn median_depth(&mut self, disparity: &DeviceBuffer<f32>, focal_baseline: f32) -> Result<Option<f32>> {
        let n = self.depth_dev.len() as u32;
        {
            let _wait = InFlight { stream: &self.stream };
            unsafe {
                self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[disparity, &self.depth_dev, &n, &focal_baseline])?;
                self.stream.copy_dtoh_async(&mut self.depth_host, &self.depth_dev)?;
            }
        }
        let mut valid: Vec<f32> = self.depth_host.iter().copied().filter(|d| *d > 0.0).collect();
        if valid.is_empty() {
            return Ok(None);
        }
        let mid = valid.len() / 2;
        let (_, median, _) = valid.select_nth_unstable_by(mid, f32::total_cmp);
        Ok(Some(*median))
    }
}
