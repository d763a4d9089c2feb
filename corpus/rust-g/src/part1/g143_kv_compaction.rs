//! case: KV-cache block compaction for a paged-attention engine: the cache is one physical allocation mapped twice with the runtime layer (the serving view and a maintenance view); the compaction kernel gathers live blocks through the maintenance view and writes them to their new slots through the serving view in the same launch, without `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const COMPACT_SRC: &str = r#"
// moves[2*i] -> moves[2*i+1], block indices; blocks are `block_elems` floats.
extern "C" __global__ void compact_blocks(float* kv_serving, const float* kv_maint, const int* moves,
                                          unsigned n_moves, unsigned block_elems) {
    unsigned m = blockIdx.x;
    if (m >= n_moves) return;
    const float* src = kv_maint + (size_t)moves[2 * m] * block_elems;
    float* dst = kv_serving + (size_t)moves[2 * m + 1] * block_elems;
    for (unsigned e = threadIdx.x; e < block_elems; e += blockDim.x) dst[e] = src[e];
}
"#;

pub struct PagedKv {
    serving: Mapping,
    maintenance: Mapping,
    pub block_elems: u32,
    pub n_blocks: u32,
}

impl PagedKv {
    pub fn new(ctx: &Context, n_blocks: u32, block_elems: u32) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (n_blocks as usize * block_elems as usize * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        Ok(PagedKv {
            serving: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            maintenance: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
            block_elems,
            n_blocks,
        })
    }

    /// Plans moves that pack the live blocks to the front of the cache.
    pub fn plan(live: &[bool]) -> Vec<i32> {
        let mut moves = Vec::new();
        let mut next_free = 0i32;
        for (b, &is_live) in live.iter().enumerate() {
            if is_live {
                if b as i32 != next_free {
                    moves.extend_from_slice(&[b as i32, next_free]);
                }
                next_free += 1;
            }
        }
        moves
    }

    pub fn compact(&self, ctx: &Context, stream: &Stream, moves: &DeviceBuffer<i32>) -> Result<()> {
        let kernel = ctx.load_cuda(COMPACT_SRC)?.function("compact_blocks")?;
        let n_moves = (moves.len() / 2) as u32;
        let cfg = LaunchConfig { grid: (n_moves.max(1), 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { stream.launch(&kernel, cfg, &[&self.serving, &self.maintenance, moves, &n_moves, &self.block_elems]) } // EXPECT: unfenced_vmm_alias
    }
}

pub fn compact_after_eviction(ctx: &Context, kv: &PagedKv, live: &[bool]) -> Result<usize> {
    let stream = ctx.new_stream()?;
    let plan = PagedKv::plan(live);
    if plan.is_empty() {
        return Ok(0);
    }
    let mut staging = ctx.alloc_pinned::<i32>(plan.len())?;
    staging.copy_from_slice(&plan);
    let mut moves = ctx.alloc::<i32>(plan.len())?;
    unsafe { stream.copy_htod_async(&mut moves, &staging)? };
    kv.compact(ctx, &stream, &moves)?;
    stream.synchronize()?;
    Ok(plan.len() / 2)
}
