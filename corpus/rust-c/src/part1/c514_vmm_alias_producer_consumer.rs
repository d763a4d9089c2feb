//! case: a zero-copy handoff between two pipeline stages: one physical allocation mapped twice with the runtime layer; the producer kernel writes through one mapping on stream A, the consumer kernel reads through the other on stream B, with no event between the streams
//! expect: unfenced_vmm_alias=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

const STAGES_SRC: &str = r#"
extern "C" __global__ void decode_tokens(const int* ids, float* embed_out, int dim, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n * dim) embed_out[i] = (float)(ids[i / dim] % 97) * 0.01f + (float)(i % dim);
}
extern "C" __global__ void layer_norm_rows(const float* embed_in, float* normed, int dim, int n) {
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= n) return;
    float mean = 0.0f;
    for (int k = 0; k < dim; ++k) mean += embed_in[row * dim + k];
    mean /= dim;
    for (int k = 0; k < dim; ++k) normed[row * dim + k] = embed_in[row * dim + k] - mean;
}
"#;

pub struct Handoff {
    producer_stream: Stream,
    consumer_stream: Stream,
    decode: Kernel,
    norm: Kernel,
    write_view: Mapping,
    read_view: Mapping,
    _physical: PhysicalAllocation,
}

impl Handoff {
    pub fn new(ctx: &Context, bytes: usize) -> cuda_lint_runtime::Result<Self> {
        let module = ctx.load_cuda(STAGES_SRC)?;
        let gran = ctx.vmm_granularity()?;
        let size = bytes.next_multiple_of(gran);
        let physical = PhysicalAllocation::new(ctx, size)?;
        // Two virtual ranges over one physical allocation: each stage owns its own view.
        let write_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let read_view = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        Ok(Self {
            producer_stream: ctx.new_stream()?,
            consumer_stream: ctx.new_stream()?,
            decode: module.function("decode_tokens")?,
            norm: module.function("layer_norm_rows")?,
            write_view,
            read_view,
            _physical: physical,
        })
    }

    pub fn run_batch(&self, ids: &DeviceBuffer<i32>, normed: &mut DeviceBuffer<f32>, dim: i32) -> cuda_lint_runtime::Result<()> {
        let n = ids.len() as i32;
        unsafe {
            self.producer_stream.launch(
                &self.decode,
                LaunchConfig::for_num_elems((n * dim) as u32),
                &[ids, &self.write_view, &dim, &n],
            )?;
            self.consumer_stream.launch(&self.norm, LaunchConfig::for_num_elems(n as u32), &[&self.read_view, normed, &dim, &n])?; // EXPECT: unfenced_vmm_alias
        }
        self.consumer_stream.synchronize()
    }
}
