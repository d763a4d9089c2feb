//! case: a depth-map pipeline (runtime layer VMM) writes a depth buffer through one mapping on the capture stream and reads it through a second mapping of the same allocation on the meshing stream; the meshing stream waits on an event recorded after the capture kernel
//! expect: none

use std::sync::{Arc, Mutex};

use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub const DEPTH_CU: &str = r#"
extern "C" __global__ void disparity_to_depth(const float* disparity, float* depth, int n,
                                              float focal_baseline) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) depth[i] = disparity[i] > 0.f ? focal_baseline / disparity[i] : 0.f;
}
extern "C" __global__ void count_valid(const float* depth, int n, float max_depth, unsigned int* valid) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && depth[i] > 0.f && depth[i] < max_depth) atomicAdd(valid, 1u);
}
"#;

pub struct DepthPipeline {
    capture: Stream,
    meshing: Stream,
    depth_ready: Event,
    to_depth: Kernel,
    count_valid: Kernel,
    depth_w: Mapping,
    depth_r: Mapping,
    valid: Arc<Mutex<DeviceBuffer<u32>>>,
}

impl DepthPipeline {
    pub fn new(ctx: &Context, pixels: usize) -> Result<Self> {
        let bytes = (pixels * 4).next_multiple_of(ctx.vmm_granularity()?);
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let module = ctx.load_cuda(DEPTH_CU)?;
        Ok(Self {
            capture: ctx.new_stream()?,
            meshing: ctx.new_stream()?,
            depth_ready: ctx.new_event()?,
            to_depth: module.function("disparity_to_depth")?,
            count_valid: module.function("count_valid")?,
            depth_w: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            depth_r: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            valid: Arc::new(Mutex::new(ctx.alloc_zeroed::<u32>(1)?)),
        })
    }

    pub fn process(&self, disparity: &DeviceBuffer<f32>, focal_baseline: f32, max_depth: f32) -> Result<u32> {
        let n = disparity.len() as i32;
        let cfg = LaunchConfig::for_num_elems(n as u32);
        unsafe {
            self.capture.launch(&self.to_depth, cfg, &[disparity, &self.depth_w, &n, &focal_baseline])?;
        }
        self.capture.record_event(&self.depth_ready)?;
        self.meshing.wait_event(&self.depth_ready)?;
        let mut valid = self.valid.lock().expect("valid counter poisoned");
        self.meshing.memset_d32_async(&mut *valid, 0)?;
        unsafe {
            self.meshing.launch(&self.count_valid, cfg, &[&self.depth_r, &n, &max_depth, &mut *valid])?;
        }
        let mut out = [0u32; 1];
        self.meshing.copy_dtoh(&mut out, &valid)?;
        Ok(out[0])
    }
}
