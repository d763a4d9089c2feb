//! case: speculative decoding keeps the draft tokens in one VMM allocation mapped at two addresses (a writable view for the kernels that edit drafts, a read view for the verifier); the verify kernel writes the corrected token through one view and re-reads through the other, with `fence.proxy.alias` between them
//! expect: none

use cuda_lint_runtime::{Context, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const VERIFY_SRC: &str = r#"
extern "C" __global__ void write_drafts(int* draft_w, const int* proposals, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) draft_w[i] = proposals[i];
}

extern "C" __global__ void accept_prefix(int* draft_w, const int* draft_r, const int* target,
                                         unsigned n, unsigned* accepted) {
    __shared__ unsigned first_miss;
    unsigned i = threadIdx.x;
    if (i == 0) first_miss = n;
    __syncthreads();
    if (i < n && draft_r[i] != target[i]) atomicMin(&first_miss, i);
    __syncthreads();
    if (i == 0) {
        if (first_miss < n) draft_w[first_miss] = target[first_miss];
        // the correction went through the writable view: make it visible to the read view
        asm volatile("fence.proxy.alias;" ::: "memory");
        unsigned k = first_miss < n ? first_miss + 1 : n;
        accepted[0] = k;
        accepted[1] = (unsigned)draft_r[k - 1];
    }
}
"#;

pub struct DraftBuffer {
    write_view: Mapping,
    read_view: Mapping,
}

impl DraftBuffer {
    pub fn new(ctx: &Context) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let physical = PhysicalAllocation::new(ctx, gran)?;
        let write_view = VirtualRange::reserve(ctx, gran)?.map(&physical, 0)?;
        let read_view = VirtualRange::reserve(ctx, gran)?.map(&physical, 0)?;
        debug_assert!(write_view.aliases(&read_view));
        Ok(DraftBuffer { write_view, read_view })
    }
}

pub fn verify_step(ctx: &Context, stream: &Stream, proposals: &[i32], target: &[i32]) -> Result<(usize, i32)> {
    let module = ctx.load_cuda(VERIFY_SRC)?;
    let write_drafts = module.function("write_drafts")?;
    let accept = module.function("accept_prefix")?;
    let drafts = DraftBuffer::new(ctx)?;

    let n = proposals.len().min(target.len()).min(256);
    let mut stage: PinnedBuffer<i32> = ctx.alloc_pinned(2 * n)?;
    stage[..n].copy_from_slice(&proposals[..n]);
    stage[n..].copy_from_slice(&target[..n]);
    let mut prop_dev = ctx.alloc::<i32>(n)?;
    let mut target_dev = ctx.alloc::<i32>(n)?;
    let accepted = ctx.alloc_zeroed::<u32>(2)?;
    let mut accepted_host = ctx.alloc_pinned::<u32>(2)?;
    let n32 = n as u32;

    unsafe {
        stream.copy_htod_async(&mut prop_dev, &stage[..n])?;
        stream.copy_htod_async(&mut target_dev, &stage[n..])?;
        stream.launch(&write_drafts, LaunchConfig::for_num_elems(n32), &[&drafts.write_view, &prop_dev, &n32])?;
        let one_block = LaunchConfig { grid: (1, 1, 1), block: (256, 1, 1), shared_mem_bytes: 0 };
        stream.launch(&accept, one_block, &[&drafts.write_view, &drafts.read_view, &target_dev, &n32, &accepted])?;
        stream.copy_dtoh_async(&mut accepted_host, &accepted)?;
    }
    stream.synchronize()?;
    Ok((accepted_host[0] as usize, accepted_host[1] as i32))
}
