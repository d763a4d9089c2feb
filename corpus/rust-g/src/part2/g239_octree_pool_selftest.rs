//! case: sparse-voxel-octree node pool on a runtime-layer VMM Mapping; the pool's self-test launches the init kernel, synchronizes, and then checks the free-list links by making a host slice over the mapping's device address
//! expect: host_deref_device_ptr=1

use cuda_lint_runtime::{Context, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const POOL_SRC: &str = r#"
struct Node { unsigned child[8]; unsigned next_free; unsigned payload; unsigned pad[6]; };

extern "C" __global__ void init_free_list(Node* nodes, unsigned count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    for (int c = 0; c < 8; ++c) nodes[i].child[c] = 0xffffffffu;
    nodes[i].next_free = (i + 1 < count) ? i + 1 : 0xffffffffu;
    nodes[i].payload = 0;
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Node {
    pub child: [u32; 8],
    pub next_free: u32,
    pub payload: u32,
    pub pad: [u32; 6],
}

pub struct NodePool {
    mapping: Mapping,
    stream: Stream,
    count: u32,
}

impl NodePool {
    pub fn new(ctx: &Context, count: u32) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (count as usize * std::mem::size_of::<Node>()).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, bytes)?;
        let mapping = VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?;
        let stream = ctx.new_stream()?;
        let init = ctx.load_cuda(POOL_SRC)?.function("init_free_list")?;
        unsafe { stream.launch(&init, LaunchConfig::for_num_elems(count), &[&mapping, &count])? };
        Ok(Self { mapping, stream, count })
    }

    /// Walks the free list from node 0 and checks that it visits every node exactly once.
    pub fn self_test(&self) -> Result<bool> {
        self.stream.synchronize()?;
        let nodes = unsafe {
            std::slice::from_raw_parts(self.mapping.device_ptr().as_raw() as *const Node, self.count as usize) // EXPECT: host_deref_device_ptr
        };
        let mut seen = vec![false; nodes.len()];
        let mut cur = 0u32;
        while cur != u32::MAX {
            let i = cur as usize;
            if i >= nodes.len() || seen[i] {
                return Ok(false);
            }
            seen[i] = true;
            cur = nodes[i].next_free;
        }
        Ok(seen.into_iter().all(|s| s))
    }
}

pub fn build_pool() -> Result<bool> {
    let ctx = Context::new(0)?;
    if !ctx.vmm_supported()? {
        return Ok(false);
    }
    let pool = NodePool::new(&ctx, 1 << 20)?;
    pool.self_test()
}
