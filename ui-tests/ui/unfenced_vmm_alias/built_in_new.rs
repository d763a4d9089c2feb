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

// A function given the ring (not a method of it): its parameter holds what the one builder of
// its type made, too.
fn fires_function_given_the_ring(ring: &Ring) -> Result<(), Error> {
    let cfg = LaunchConfig::for_num_elems(ring.out.len() as u32);
    unsafe { ring.stream.launch(&ring.push, cfg, &[&ring.lo, &ring.hi, &ring.out]) } //~ unfenced_vmm_alias
}

fn ok_function_given_the_ring_uses_one_view(ring: &Ring) -> Result<(), Error> {
    let cfg = LaunchConfig::for_num_elems(ring.out.len() as u32);
    unsafe { ring.stream.launch(&ring.push, cfg, &[&ring.lo, &ring.lo, &ring.out]) }
}

// Two views on two streams, through two methods called one after the other.
impl Ring {
    fn write_lo(&self, other: &Stream) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(self.out.len() as u32);
        unsafe { other.launch(&self.push_fenced, cfg, &[&self.lo, &self.lo, &self.out]) }
    }

    fn read_hi(&self) -> Result<(), Error> {
        let cfg = LaunchConfig::for_num_elems(self.out.len() as u32);
        unsafe { self.stream.launch(&self.push_fenced, cfg, &[&self.hi, &self.hi, &self.out]) }
    }
}

fn fires_two_streams_given_the_ring(ring: &Ring, other: &Stream) -> Result<(), Error> {
    ring.write_lo(other)?;
    ring.read_hi() //~ unfenced_vmm_alias
}

fn ok_two_streams_synchronized(ring: &Ring, other: &Stream) -> Result<(), Error> {
    ring.write_lo(other)?;
    other.synchronize()?;
    ring.read_hi()
}

fn main() {}
