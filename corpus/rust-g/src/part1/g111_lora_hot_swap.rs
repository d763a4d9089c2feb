//! case: LoRA adapter hot swap: the adapter weights live in one VMM allocation with a staging view (written by the dequantise kernel on the copy stream) and a serving view (read by the LoRA kernel on the compute stream); the compute stream waits on an event recorded after the dequantise kernel
//! expect: none

use cuda_lint_runtime::{
    Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream,
    VirtualRange,
};

const LORA_SRC: &str = r#"
extern "C" __global__ void dequant_adapter(float* adapter_staging, const signed char* packed,
                                           const float* scale, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) adapter_staging[i] = packed[i] * scale[0];
}

// y[r] += sum_k B[r][k] * (A x)[k], with A (rank x dim) and B (dim x rank) packed in `adapter`.
extern "C" __global__ void apply_lora(const float* adapter, const float* x, float* y,
                                      unsigned dim, unsigned rank) {
    unsigned r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= dim) return;
    const float* A = adapter;
    const float* B = adapter + (size_t)rank * dim;
    float acc = 0.0f;
    for (unsigned k = 0; k < rank; ++k) {
        float ax = 0.0f;
        for (unsigned c = 0; c < dim; ++c) ax += A[(size_t)k * dim + c] * x[c];
        acc += B[(size_t)r * rank + k] * ax;
    }
    y[r] += acc;
}
"#;

pub struct AdapterSlot {
    staging: Mapping,
    serving: Mapping,
    ready: Event,
}

pub struct LoraServer {
    copy: Stream,
    compute: Stream,
    dequant: Kernel,
    apply: Kernel,
    slot: AdapterSlot,
    dim: u32,
    rank: u32,
}

impl LoraServer {
    pub fn new(ctx: &Context, dim: u32, rank: u32) -> Result<Self> {
        let module = ctx.load_cuda(LORA_SRC)?;
        let gran = ctx.vmm_granularity()?;
        let bytes = (2 * dim as usize * rank as usize * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let slot = AdapterSlot {
            staging: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            serving: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            ready: ctx.new_event()?,
        };
        Ok(LoraServer {
            copy: ctx.new_stream()?,
            compute: ctx.new_stream()?,
            dequant: module.function("dequant_adapter")?,
            apply: module.function("apply_lora")?,
            slot,
            dim,
            rank,
        })
    }

    /// Loads a new adapter; requests issued afterwards see it.
    pub fn swap_adapter(&self, packed: &DeviceBuffer<i8>, scale: &DeviceBuffer<f32>) -> Result<()> {
        // the serving kernels still running must finish reading the old adapter first
        let drained = self.compute.context().new_event()?;
        self.compute.record_event(&drained)?;
        self.copy.wait_event(&drained)?;
        let n = 2 * self.dim * self.rank;
        unsafe {
            self.copy.launch(&self.dequant, LaunchConfig::for_num_elems(n), &[&self.slot.staging, packed, scale, &n])?;
        }
        self.copy.record_event(&self.slot.ready)?;
        self.compute.wait_event(&self.slot.ready)
    }

    pub fn forward(&self, x: &DeviceBuffer<f32>, y: &DeviceBuffer<f32>) -> Result<()> {
        unsafe {
            self.compute.launch(
                &self.apply,
                LaunchConfig::for_num_elems(self.dim),
                &[&self.slot.serving, x, y, &self.dim, &self.rank],
            )
        }
    }

    pub fn finish(&self, y: &DeviceBuffer<f32>, out: &mut PinnedBuffer<f32>) -> Result<()> {
        unsafe { self.compute.copy_dtoh_async(out, y)? };
        self.compute.synchronize()
    }
}

pub fn serve(ctx: &Context, adapters: &[(DeviceBuffer<i8>, DeviceBuffer<f32>)]) -> Result<Vec<f32>> {
    let server = LoraServer::new(ctx, 1024, 16)?;
    let x = ctx.alloc_zeroed::<f32>(1024)?;
    let y = ctx.alloc_zeroed::<f32>(1024)?;
    for (packed, scale) in adapters {
        server.swap_adapter(packed, scale)?;
        server.forward(&x, &y)?;
    }
    let mut out = ctx.alloc_pinned::<f32>(1024)?;
    server.finish(&y, &mut out)?;
    Ok(out.to_vec())
}
