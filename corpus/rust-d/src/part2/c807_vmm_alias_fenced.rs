//! case: a KV-cache block is mapped twice (an append view and a read view of one physical allocation); the kernel that appends the new key through one view and then scores against all keys through the other executes `fence.proxy.alias` between the two, as the programming guide requires
//! expect: none

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange,
};

const KV_SRC: &str = r#"
extern "C" __global__ void append_and_score(float* keys_append, const float* keys_read,
                                            const float* q, float* scores,
                                            unsigned int len, unsigned int dim) {
    unsigned int t = threadIdx.x;
    unsigned int row = blockIdx.x;
    // the block that scores row `len` first appends the new key there, through the append view
    if (row == len && t < dim) keys_append[(size_t)len * dim + t] = q[t];
    __syncthreads();
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (row > len) return;
    if (t == 0) {
        float acc = 0.0f;
        for (unsigned int k = 0; k < dim; ++k) acc += q[k] * keys_read[(size_t)row * dim + k];
        scores[row] = acc;
    }
}
"#;

struct KvViews {
    _phys: PhysicalAllocation,
    append_view: Mapping,
    read_view: Mapping,
}

pub struct KvBlock {
    views: KvViews,
    kernel: Kernel,
    len: u32,
    dim: u32,
    capacity: u32,
}

impl KvBlock {
    pub fn new(ctx: &Context, capacity: u32, dim: u32) -> Result<KvBlock> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (capacity as usize * dim as usize * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, bytes)?;
        let views = KvViews {
            append_view: VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?,
            read_view: VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?,
            _phys: phys,
        };
        let kernel = ctx.load_cuda(KV_SRC)?.function("append_and_score")?;
        Ok(KvBlock { views, kernel, len: 0, dim, capacity })
    }

    pub fn step(&mut self, stream: &Stream, q: &DeviceBuffer<f32>, scores: &mut DeviceBuffer<f32>) -> Result<bool> {
        if self.len >= self.capacity {
            return Ok(false);
        }
        let cfg = LaunchConfig { grid: (self.len + 1, 1, 1), block: (self.dim.max(32), 1, 1), shared_mem_bytes: 0 };
        let KvViews { append_view, read_view, .. } = &self.views;
        unsafe {
            stream.launch(&self.kernel, cfg, &[append_view, read_view, q, &*scores, &self.len, &self.dim])?;
        }
        self.len += 1;
        Ok(true)
    }
}
