//! case: a stencil solver exposes its grid through two runtime-layer VMM views of one physical allocation (an "interior" view it updates and a "halo" view other code reads from); the row-relaxation kernel pins the row ends through the interior view and, after `__syncthreads`, reads the neighbours through the halo view in the same launch, without `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const STENCIL_SRC: &str = r#"
extern "C" __global__ void relax_rows(float* interior, const float* halo, float* residual, unsigned int w)
{
    unsigned int x = threadIdx.x, y = blockIdx.x;
    if (x >= w) return;
    unsigned int i = y * w + x;
    if (x == 0 || x == w - 1) interior[i] = 1.0f;      // pin the row ends through the interior view
    __syncthreads();
    if (x == 0 || x == w - 1) return;
    float avg = 0.5f * (halo[i - 1] + halo[i + 1]);    // neighbours, maybe just pinned, through the halo view
    atomicAdd(residual, fabsf(avg - halo[i]));
}
"#;

pub struct Grid {
    interior: Mapping,
    halo: Mapping,
    _physical: PhysicalAllocation,
    w: u32,
    h: u32,
}

impl Grid {
    pub fn new(ctx: &Context, w: u32, h: u32) -> Result<Self> {
        assert!(w <= 1024, "one block per row");
        let gran = ctx.vmm_granularity()?;
        let size = ((w * h) as usize * 4).div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let interior = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let halo = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        Ok(Self { interior, halo, _physical: physical, w, h })
    }
}

pub struct Relaxer {
    stream: Stream,
    kernel: Kernel,
}

impl Relaxer {
    pub fn new(ctx: &Context) -> Result<Self> {
        Ok(Self { stream: ctx.new_stream()?, kernel: ctx.load_cuda(STENCIL_SRC)?.function("relax_rows")? })
    }

    pub fn residual(&self, ctx: &Context, grid: &mut Grid) -> Result<f32> {
        let mut residual = ctx.alloc_zeroed::<f32>(1)?;
        self.stream.memset_d32(&mut grid.interior, 0)?;
        let cfg = LaunchConfig { grid: (grid.h, 1, 1), block: (grid.w, 1, 1), shared_mem_bytes: 0 };
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[&grid.interior, &grid.halo, &mut residual, &grid.w])?; // EXPECT: unfenced_vmm_alias
        }
        let mut host = ctx.alloc_pinned::<f32>(1)?;
        unsafe { self.stream.copy_dtoh_async(&mut host, &residual)? };
        self.stream.synchronize()?;
        Ok(host[0])
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let mut grid = Grid::new(&ctx, 1024, 1024)?;
    let relaxer = Relaxer::new(&ctx)?;
    println!("residual {}", relaxer.residual(&ctx, &mut grid)?);
    Ok(())
}
