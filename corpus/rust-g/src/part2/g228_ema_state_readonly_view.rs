//! case: streaming EMA feature state kept in one PhysicalAllocation mapped twice with the runtime layer (a read-write mapping and a read-only view for consumers); the fused kernel updates the state through the read-write mapping and, in the same launch, emits the snapshot through the read-only view without fence.proxy.alias
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{AccessFlags, Context, DeviceBuffer, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const EMA_SRC: &str = r#"
extern "C" __global__ void ema_update_emit(float* state, const float* state_view, const float* sample,
                                           float alpha, float scale, float* snapshot, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    state[i] = alpha * sample[i] + (1.f - alpha) * state[i];
    snapshot[i] = scale * state_view[i];
}
"#;

pub struct EmaState {
    ctx: Context,
    stream: Stream,
    kernel: cuda_lint_runtime::Kernel,
    rw: Mapping,
    view: Mapping,
    len: usize,
}

impl EmaState {
    pub fn new(ctx: &Context, features: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (features * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let rw = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let view = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        view.set_access(AccessFlags::Read)?;
        let stream = ctx.new_stream()?;
        let module = ctx.load_cuda(EMA_SRC)?;
        let kernel = module.function("ema_update_emit")?;
        let mut rw = rw;
        stream.memset_d32_async(&mut rw, 0)?;
        Ok(Self { ctx: ctx.clone(), stream, kernel, rw, view, len: features })
    }

    /// Folds `sample` into the state and writes the scaled state to `snapshot`.
    pub fn push(&mut self, sample: &DeviceBuffer<f32>, snapshot: &mut DeviceBuffer<f32>, alpha: f32) -> Result<()> {
        let n = self.len as u32;
        let scale = 1.0f32;
        unsafe {
            self.stream.launch( // EXPECT: unfenced_vmm_alias
                &self.kernel,
                LaunchConfig::for_num_elems(n),
                &[&self.rw, &self.view, sample, &alpha, &scale, &*snapshot, &n],
            )?;
        }
        Ok(())
    }

    pub fn stream(&self) -> &Stream {
        &self.stream
    }
}

pub fn track(samples: &[Vec<f32>]) -> Result<Vec<f32>> {
    let ctx = Context::new(0)?;
    let features = samples.first().map_or(0, Vec::len);
    let mut ema = EmaState::new(&ctx, features)?;
    let mut pinned = ctx.alloc_pinned::<f32>(features)?;
    let mut d_sample = ctx.alloc::<f32>(features)?;
    let mut d_snap = ctx.alloc::<f32>(features)?;
    for s in samples {
        ema.stream().synchronize()?;
        pinned.copy_from_slice(s);
        unsafe { ema.stream().copy_htod_async(&mut d_sample, &pinned)? };
        ema.push(&d_sample, &mut d_snap, 0.1)?;
    }
    unsafe { ema.stream().copy_dtoh_async(&mut pinned, &d_snap)? };
    ema.stream().synchronize()?;
    let _ = ema.ctx.same_context(&ctx);
    Ok(pinned.to_vec())
}
