//! case: a sparse-update kernel (runtime layer VMM) writes embedding rows through one mapping of a physical allocation and reads the updated row back (its own and the neighbouring column) through a second mapping of the same allocation; the kernel executes `fence.proxy.alias` and a barrier between the writes and the reads
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub const APPLY_CU: &str = r#"
// `rows_w` and `rows_r` are two virtual aliases of one physical table of `dim`-wide rows.
extern "C" __global__ void apply_and_smooth(float* rows_w, const float* rows_r,
                                            const int* ids, const float* grads,
                                            float* smoothed, int n_ids, int dim, float lr) {
    int u = blockIdx.x;          // one block per updated id
    int d = threadIdx.x;         // one thread per column
    if (u >= n_ids || d >= dim) return;
    int row = ids[u];
    rows_w[row * dim + d] -= lr * grads[u * dim + d];
    // Writes through rows_w must be visible to reads through the other alias.
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    // Neighbouring column of the same row: written by another thread of this block.
    float left = d > 0 ? rows_r[row * dim + d - 1] : rows_r[row * dim + d];
    smoothed[u * dim + d] = 0.5f * (rows_r[row * dim + d] + left);
}
"#;

pub struct EmbeddingTable {
    stream: Stream,
    apply: Kernel,
    writer: Mapping,
    reader: Mapping,
    dim: i32,
}

impl EmbeddingTable {
    pub fn new(ctx: &Context, rows: usize, dim: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (rows * dim * 4).next_multiple_of(gran);
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        // Both views get read-write access from `map`; the physical memory lives as long as they do.
        let mut writer = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let reader = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        debug_assert!(writer.aliases(&reader));
        let stream = ctx.new_stream()?;
        stream.memset_d32(&mut writer, 0)?;
        let apply = ctx.load_cuda(APPLY_CU)?.function("apply_and_smooth")?;
        Ok(Self { stream, apply, writer, reader, dim: dim as i32 })
    }

    pub fn step(&self, ids: &DeviceBuffer<i32>, grads: &DeviceBuffer<f32>, smoothed: &mut DeviceBuffer<f32>, lr: f32) -> Result<()> {
        let n_ids = ids.len() as i32;
        let cfg = LaunchConfig { grid: (n_ids as u32, 1, 1), block: (self.dim as u32, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch(&self.apply, cfg, &[&self.writer, &self.reader, ids, grads, smoothed, &n_ids, &self.dim, &lr])?;
        }
        self.stream.synchronize()
    }
}
