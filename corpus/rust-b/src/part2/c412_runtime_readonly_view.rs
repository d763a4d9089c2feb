//! case: a layer-norm buffer with a read-only alias mapping for consumers (runtime layer VMM); the normalize kernel writes through one mapping and reads back through the other without a fence
//! expect: unfenced_vmm_alias=1
use cuda_lint_runtime::{AccessFlags, Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const NORM_SRC: &str = r#"
extern "C" __global__ void normalize_and_square(float* act, const float* view, float* sq,
                                                float mean, float inv_std, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    act[i] = (act[i] - mean) * inv_std;
    // squares for the variance check are taken from the consumers' read-only view
    float v = view[i];
    sq[i] = v * v;
}
"#;

/// Activations with a writable mapping for the producer and a read-only one for consumers.
pub struct SharedActivations {
    writable: Mapping,
    readonly: Mapping,
    len: usize,
}

impl SharedActivations {
    pub fn new(ctx: &Context, len: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (len * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let writable = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let readonly = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        readonly.set_access(AccessFlags::Read)?;
        // `physical` drops here; the mappings keep it alive.
        Ok(Self { writable, readonly, len })
    }

    pub fn consumer_view(&self) -> &Mapping {
        &self.readonly
    }
}

pub struct LayerNorm {
    kernel: Kernel,
    squares: DeviceBuffer<f32>,
}

impl LayerNorm {
    pub fn new(ctx: &Context, len: usize) -> Result<Self> {
        let module = ctx.load_cuda(NORM_SRC)?;
        Ok(Self { kernel: module.function("normalize_and_square")?, squares: ctx.alloc_zeroed(len)? })
    }

    pub fn forward(&mut self, stream: &Stream, acts: &SharedActivations, mean: f32, inv_std: f32) -> Result<()> {
        let n = acts.len as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { stream.launch(&self.kernel, cfg, &[&acts.writable, &acts.readonly, &self.squares, &mean, &inv_std, &n])? }; // EXPECT: unfenced_vmm_alias
        Ok(())
    }
}

pub fn run(ctx: &Context) -> Result<f32> {
    let stream = ctx.new_stream()?;
    let acts = SharedActivations::new(ctx, 4096)?;
    let mut norm = LayerNorm::new(ctx, 4096)?;
    norm.forward(&stream, &acts, 0.5, 2.0)?;
    stream.synchronize()?;
    let _ = acts.consumer_view();
    let mut host = ctx.alloc_pinned::<f32>(4096)?;
    stream.copy_dtoh(&mut host, &norm.squares)?;
    Ok(host.iter().sum::<f32>() / 4096.0)
}
