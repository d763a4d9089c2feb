//! case: periodic 1D advection step that maps one physical allocation twice (cuda-lint-runtime VMM) to get a "ghost" view for the wrap-around neighbour; the kernel writes each cell through one mapping and then reads the same cell back through the other, with no `fence.proxy.alias` in its source: the read may see stale data
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const UPWIND_SRC: &str = r#"
extern "C" __global__ void upwind_relax(float* field, const float* ghost, float* flux, int n, float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    field[i] = field[i] * (1.0f - c);
    // the outgoing flux is taken from the relaxed value, read back through the ghost view
    // that the boundary-exchange code uses (the same physical cell as field[i])
    flux[i] = c * ghost[i];
}
"#;

fn round_up(bytes: usize, granularity: usize) -> usize {
    bytes.div_ceil(granularity) * granularity
}

pub struct PeriodicField {
    stream: Stream,
    kernel: Kernel,
    _physical: PhysicalAllocation,
    field: Mapping,
    ghost: Mapping,
    flux_host: PinnedBuffer<f32>,
    n: usize,
}

impl PeriodicField {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = round_up(n * std::mem::size_of::<f32>(), gran);
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let field = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let ghost = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        debug_assert!(field.aliases(&ghost));
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_cuda(UPWIND_SRC)?.function("upwind_relax")?;
        let flux_host = ctx.alloc_pinned::<f32>(n)?;
        Ok(Self { stream, kernel, _physical: physical, field, ghost, flux_host, n })
    }

    pub fn step(&mut self, courant: f32) -> Result<f32> {
        let ctx = self.stream.context();
        let mut flux = ctx.alloc::<f32>(self.n)?;
        let n = self.n as i32;
        let cfg = LaunchConfig::for_num_elems(self.n as u32);
        unsafe { self.stream.launch(&self.kernel, cfg, &[&self.field, &self.ghost, &mut flux, &n, &courant])? }; // EXPECT: unfenced_vmm_alias
        unsafe { self.stream.copy_dtoh_async(&mut self.flux_host, &flux)? };
        self.stream.synchronize()?;
        Ok(self.flux_host.iter().sum())
    }
}
