//! case: a weight-streaming loader dequantizes a layer on a loader stream through one mapping of a physical allocation while the compute stream reads the layer through another mapping; a helper records an event on the loader stream and makes the compute stream wait on it before the read, and the next load waits for the compute stream's event in turn
//! expect: none

use cuda_lint_runtime::{
    Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange,
};

const SRC: &str = r#"
extern "C" __global__ void dequant_int8(const signed char* q, const float* scale, float* w, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] = (float)q[i] * scale[i / 128];
}
extern "C" __global__ void gemv(const float* w, const float* x, float* y, unsigned int rows, unsigned int cols) {
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float acc = 0.0f;
    for (unsigned int c = 0; c < cols; ++c) acc += w[(size_t)r * cols + c] * x[c];
    y[r] = acc;
}
"#;

pub struct LayerSlot {
    _phys: PhysicalAllocation,
    load_view: Mapping,
    compute_view: Mapping,
    ready: Event,
    consumed: Event,
}

pub struct Streamer {
    loader: Stream,
    compute: Stream,
    dequant: Kernel,
    gemv: Kernel,
}

impl Streamer {
    pub fn new(ctx: &Context) -> Result<Self> {
        let m = ctx.load_cuda(SRC)?;
        Ok(Self { loader: ctx.new_stream()?, compute: ctx.new_stream()?, dequant: m.function("dequant_int8")?, gemv: m.function("gemv")? })
    }

    pub fn slot(&self, ctx: &Context, bytes: usize) -> Result<LayerSlot> {
        let gran = ctx.vmm_granularity()?;
        let size = bytes.div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        Ok(LayerSlot {
            load_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
            compute_view: VirtualRange::reserve(ctx, size)?.map(&phys, 0)?,
            _phys: phys,
            ready: ctx.new_event()?,
            consumed: ctx.new_event()?,
        })
    }

    /// Orders everything enqueued on the loader so far before what the compute stream does next.
    fn publish(&self, slot: &LayerSlot) -> Result<()> {
        self.loader.record_event(&slot.ready)?;
        self.compute.wait_event(&slot.ready)
    }

    pub fn layer(
        &self,
        slot: &LayerSlot,
        q: &DeviceBuffer<i8>,
        scales: &DeviceBuffer<f32>,
        x: &DeviceBuffer<f32>,
        y: &mut DeviceBuffer<f32>,
    ) -> Result<()> {
        let (rows, cols) = (y.len() as u32, x.len() as u32);
        let n = rows * cols;
        // the previous layer's gemv must be done reading before the slot is overwritten
        self.loader.wait_event(&slot.consumed)?;
        unsafe {
            self.loader.launch(&self.dequant, LaunchConfig::for_num_elems(n), &[q, scales, &slot.load_view, &n])?;
        }
        self.publish(slot)?;
        unsafe {
            self.compute.launch(&self.gemv, LaunchConfig::for_num_elems(rows), &[&slot.compute_view, x, &*y, &rows, &cols])?;
        }
        self.compute.record_event(&slot.consumed)

    }
}
