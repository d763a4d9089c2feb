//! case: stencil solver reuses one scratch allocation through two VMM views (runtime layer): the smoothing kernel writes through one view and the residual kernel reads through the other, both on the same stream, so the second starts after the first completes
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange};

const SMOOTH_SRC: &str = r#"
extern "C" __global__ void jacobi_smooth(const float* u, const float* f, float* scratch, unsigned int n, float h2) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i == 0 || i >= n - 1) return;
    scratch[i] = 0.5f * (u[i - 1] + u[i + 1] + h2 * f[i]);
}
"#;

const RESID_SRC: &str = r#"
extern "C" __global__ void residual_norm(const float* smoothed, const float* u, float* partial, unsigned int n) {
    __shared__ float acc[256];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    float d = (i > 0 && i < n - 1) ? smoothed[i] - u[i] : 0.f;
    acc[threadIdx.x] = d * d;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) acc[threadIdx.x] += acc[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = acc[0];
}
"#;

struct Scratch {
    write_side: Mapping,
    read_side: Mapping,
}

fn scratch_views(ctx: &Context, n: usize) -> Result<Scratch> {
    let gran = ctx.vmm_granularity()?;
    let bytes = (n * 4).div_ceil(gran) * gran;
    let phys = PhysicalAllocation::new(ctx, bytes)?;
    Ok(Scratch {
        write_side: VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?,
        read_side: VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?,
    })
}

pub fn residual_after_sweep(ctx: &Context, u: &DeviceBuffer<f32>, f: &DeviceBuffer<f32>, h: f32) -> Result<f32> {
    let n = u.len() as u32;
    let smooth = ctx.load_cuda(SMOOTH_SRC)?.function("jacobi_smooth")?;
    let resid = ctx.load_cuda(RESID_SRC)?.function("residual_norm")?;
    let scratch = scratch_views(ctx, u.len())?;
    let cfg = LaunchConfig::for_num_elems(n);
    let blocks = cfg.grid.0 as usize;
    let partial = ctx.alloc_zeroed::<f32>(blocks)?;
    let mut host: PinnedBuffer<f32> = ctx.alloc_pinned(blocks)?;
    let stream: Stream = ctx.new_stream()?;
    let h2 = h * h;
    unsafe {
        stream.launch(&smooth, cfg, &[u, f, &scratch.write_side, &n, &h2])?;
        stream.launch(&resid, cfg, &[&scratch.read_side, u, &partial, &n])?;
        stream.copy_dtoh_async(&mut host, &partial)?;
    }
    stream.synchronize()?;
    Ok(host.iter().sum::<f32>().sqrt())
}
