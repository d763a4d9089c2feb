//! case: a double-buffered accumulator over two VMM aliases; the kernel writes through one and reads through the other, with fence.proxy.alias issued by a __device__ helper in between
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const ACC_SRC: &str = r#"
__device__ __forceinline__ void alias_barrier() {
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
}

extern "C" __global__ void accumulate(float* acc_w, const float* acc_r, const float* sample, float* snapshot, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc_w[i] += sample[i];
    alias_barrier();
    if (i < n) snapshot[i] = acc_r[i];
}
"#;

pub struct Accumulator {
    kernel: Kernel,
    write_view: Mapping,
    read_view: Mapping,
    n: u32,
}

impl Accumulator {
    pub fn new(ctx: &Context, n: u32) -> Result<Self> {
        let kernel = ctx.load_cuda(ACC_SRC)?.function("accumulate")?;
        let gran = ctx.vmm_granularity()?;
        let size = (n as usize * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let write_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let read_view = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        Ok(Accumulator { kernel, write_view, read_view, n })
    }

    pub fn add(&mut self, stream: &Stream, sample: &DeviceBuffer<f32>, snapshot: &mut DeviceBuffer<f32>) -> Result<()> {
        let cfg = LaunchConfig::for_num_elems(self.n);
        unsafe { stream.launch(&self.kernel, cfg, &[&self.write_view, &self.read_view, sample, snapshot, &self.n]) }
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let n = 1 << 16;
    let mut acc = Accumulator::new(&ctx, n)?;
    stream.memset_d32(&mut acc.write_view, 0)?;
    let sample = ctx.alloc_zeroed::<f32>(n as usize)?;
    let mut snapshot = ctx.alloc_zeroed::<f32>(n as usize)?;
    for _ in 0..32 {
        acc.add(&stream, &sample, &mut snapshot)?;
    }
    stream.synchronize()
}
