// A mirrored ring built by its constructor (one physical allocation mapped at two addresses),
// used by its methods: each method is analysed with what the one function that builds the
// struct made, so a kernel given both views is seen to take one allocation twice.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Stream, VirtualRange};

const SRC: &str = r#"
extern "C" __global__ void push_window(volatile float* lo, volatile float* hi, float* out) {
    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
    lo[i] = 1.0f;
    out[i] = hi[i];
}
extern "C" __global__ void push_window_fenced(volatile float* lo, volatile float* hi, float* out) {
    unsigned i = threadIdx.x + blockIdx.x * blockDim.x;
    lo[i] = 1.0f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = hi[i];
}
"#;

struct Ring {
    stream: Stream,
    push: Kernel,
    push_fenced: Kernel,
    phys: PhysicalAllocation,
    lo: Mapping,
    hi: Mapping,
    out: DeviceBuffer<f32>,
}

impl Ring {
    fn new(ctx: &Context, size: usize) -> Result<Ring, Error> {
        let module = ctx.load_cuda(SRC)?;
        let phys = PhysicalAllocation::new(ctx, size)?;
        let lo = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        let hi = VirtualRange::reserve(ctx, size)?.map(&phys, 0)?;
        Ok(Ring {
            stream: ctx.new_stream()?,
            push: module.function("push_window")?,
            push_fenced: module.function("push_window_fenced")?,
            phys,
            lo,
            hi,
            out: ctx.alloc::<f32>(size / 4)?,
        })
    }

    fn fires_one_kernel_given_both_views(&self) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(self.out.len() as u32);
        unsafe { self.stream.launch(&self.push, cfg, &[&self.lo, &self.hi, &self.out]) } //~ unfenced_vmm_alias
    }

    fn ok_fenced_kernel_given_both_views(&self) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(self.out.len() as u32);
        unsafe { self.stream.launch(&self.push_fenced, cfg, &[&self.lo, &self.hi, &self.out]) }
    }

    fn ok_one_view_only(&self) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(self.out.len() as u32);
        unsafe { self.stream.launch(&self.push, cfg, &[&self.lo, &self.lo, &self.out]) }
    }
}

fn main() {}
