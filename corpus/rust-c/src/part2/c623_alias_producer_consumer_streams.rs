//! case: a producer stream fills a buffer through one VMM mapping while a consumer stream reduces it through a second mapping of the same physical allocation (runtime layer), with no event between the two streams
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void decode_rle(const unsigned* runs, float* out, unsigned nruns, unsigned run_len) {
    unsigned r = blockIdx.x;
    if (r >= nruns) return;
    float v = __uint_as_float(runs[r]);
    for (unsigned j = threadIdx.x; j < run_len; j += blockDim.x) out[r * run_len + j] = v;
}

extern "C" __global__ void sum_blocks(const float* in, float* partial, unsigned n) {
    __shared__ float s[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    for (unsigned w = 128; w > 0; w >>= 1) {
        if (threadIdx.x < w) s[threadIdx.x] += s[threadIdx.x + w];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = s[0];
}
"#;

/// A decoded column shared by the decoder (writer view) and the aggregator (reader view).
struct SharedColumn {
    _phys: PhysicalAllocation,
    writer: Mapping,
    reader: Mapping,
}

pub struct ColumnPipeline {
    decode_stream: Stream,
    reduce_stream: Stream,
    decode: Kernel,
    sum: Kernel,
    column: SharedColumn,
    partial: DeviceBuffer<f32>,
    partial_host: PinnedBuffer<f32>,
}

impl ColumnPipeline {
    pub fn new(ctx: &Context, elems: usize) -> Result<Self> {
        let module = ctx.load_cuda(SRC)?;
        let gran = ctx.vmm_granularity()?;
        let bytes = (elems * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, bytes)?;
        let writer = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let reader = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let blocks = (elems as u32).div_ceil(256) as usize;
        Ok(Self {
            decode_stream: ctx.new_stream()?,
            reduce_stream: ctx.new_stream()?,
            decode: module.function("decode_rle")?,
            sum: module.function("sum_blocks")?,
            column: SharedColumn { _phys: phys, writer, reader },
            partial: ctx.alloc(blocks)?,
            partial_host: ctx.alloc_pinned(blocks)?,
        })
    }

    pub fn column_sum(&mut self, runs: &DeviceBuffer<u32>, run_len: u32) -> Result<f64> {
        let nruns = runs.len() as u32;
        let n = nruns * run_len;
        let dec_cfg = LaunchConfig { grid: (nruns, 1, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.decode_stream
                .launch(&self.decode, dec_cfg, &[runs, &self.column.writer, &nruns, &run_len])?
        };

        let sum_cfg = LaunchConfig::for_num_elems(n);
        unsafe {
            self.reduce_stream
                .launch(&self.sum, sum_cfg, &[&self.column.reader, &self.partial, &n])? // EXPECT: unfenced_vmm_alias
        };
        unsafe { self.reduce_stream.copy_dtoh_async(&mut self.partial_host, &self.partial)? };
        self.reduce_stream.synchronize()?;

        let blocks = sum_cfg.grid.0 as usize;
        Ok(self.partial_host[..blocks].iter().map(|&p| p as f64).sum())
    }
}
