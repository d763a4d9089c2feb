//! case: the EMA state of one PhysicalAllocation mapped twice (read-write mapping, read-only view) with the runtime layer; the update kernel writes through the read-write mapping and a separate emit kernel, launched after it on the same stream, reads through the view, so the write completes before the other alias is read
//! expect: none

use cuda_lint_runtime::{AccessFlags, Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const EMA_SRC: &str = r#"
extern "C" __global__ void ema_update(float* state, const float* sample, float alpha, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) state[i] = alpha * sample[i] + (1.f - alpha) * state[i];
}

extern "C" __global__ void ema_emit(const float* state_view, float scale, float* snapshot, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) snapshot[i] = scale * state_view[i];
}
"#;

struct Kernels {
    update: Kernel,
    emit: Kernel,
}

pub struct EmaTracker {
    stream: Stream,
    kernels: Kernels,
    rw: Mapping,
    view: Mapping,
    len: u32,
}

impl EmaTracker {
    pub fn new(ctx: &Context, features: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (features * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let mut rw = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        view.set_access(AccessFlags::Read)?;
        drop(physical); // the mappings keep it alive
        let module = ctx.load_cuda(EMA_SRC)?;
        let kernels = Kernels { update: module.function("ema_update")?, emit: module.function("ema_emit")? };
        let stream = ctx.new_stream()?;
        stream.memset_d32_async(&mut rw, 0)?;
        Ok(Self { stream, kernels, rw, view, len: features as u32 })
    }

    pub fn push(&mut self, sample: &DeviceBuffer<f32>, snapshot: &mut DeviceBuffer<f32>, alpha: f32) -> Result<()> {
        let n = self.len;
        let cfg = LaunchConfig::for_num_elems(n);
        let scale = 1.0f32;
        unsafe {
            self.stream.launch(&self.kernels.update, cfg, &[&self.rw, sample, &alpha, &n])?;
            self.stream.launch(&self.kernels.emit, cfg, &[&self.view, &scale, &*snapshot, &n])?;
        }
        Ok(())
    }
}

pub fn track(samples: &[Vec<f32>]) -> Result<Vec<f32>> {
    let ctx = Context::new(0)?;
    let features = samples.first().map_or(0, Vec::len);
    let mut tracker = EmaTracker::new(&ctx, features)?;
    let mut pinned = ctx.alloc_pinned::<f32>(features)?;
    let mut d_sample = ctx.alloc::<f32>(features)?;
    let mut d_snap = ctx.alloc::<f32>(features)?;
    for s in samples {
        tracker.stream.synchronize()?;
        pinned.copy_from_slice(s);
        unsafe { tracker.stream.copy_htod_async(&mut d_sample, &pinned)? };
        tracker.push(&d_sample, &mut d_snap, 0.1)?;
    }
    unsafe { tracker.stream.copy_dtoh_async(&mut pinned, &d_snap)? };
    tracker.stream.synchronize()?;
    Ok(pinned.to_vec())
}
