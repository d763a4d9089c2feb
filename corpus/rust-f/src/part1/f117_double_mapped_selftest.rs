//! case: a self-test of a double-mapped staging area (runtime layer: one `PhysicalAllocation` mapped into two `VirtualRange`s); the kernel writes a pattern through one view and reads it back through the other in the same launch, with `fence.proxy.alias` between the two accesses
//! expect: none

use cuda_lint_runtime::{Context, LaunchConfig, Mapping, PhysicalAllocation, Result, VirtualRange};

const SELFTEST_SRC: &str = r#"
extern "C" __global__ void stamp_and_verify(unsigned int* writer_view, const unsigned int* reader_view,
                                            unsigned int* mismatches, unsigned int n, unsigned int salt)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int expected = (i * 2654435761u) ^ salt;
    writer_view[i] = expected;
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (reader_view[i] != expected) atomicAdd(mismatches, 1u);
}
"#;

/// Two views of the same bytes.
pub struct DoubleMapped {
    pub writer: Mapping,
    pub reader: Mapping,
    _physical: PhysicalAllocation,
}

impl DoubleMapped {
    pub fn new(ctx: &Context, bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let size = bytes.div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, size)?;
        let writer = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        let reader = VirtualRange::reserve(ctx, size)?.map(&physical, 0)?;
        debug_assert!(writer.aliases(&reader));
        Ok(Self { writer, reader, _physical: physical })
    }
}

/// Returns the number of words read back wrong over `rounds` launches.
pub fn self_test(ctx: &Context, rounds: u32) -> Result<u32> {
    let area = DoubleMapped::new(ctx, 8 << 20)?;
    let kernel = ctx.load_cuda(SELFTEST_SRC)?.function("stamp_and_verify")?;
    let stream = ctx.new_stream()?;
    let mut mismatches = ctx.alloc_zeroed::<u32>(1)?;
    let n = (area.writer.size() / 4) as u32;
    for salt in 0..rounds {
        unsafe {
            stream.launch(
                &kernel,
                LaunchConfig::for_num_elems(n),
                &[&area.writer, &area.reader, &mut mismatches, &n, &salt],
            )?
        };
    }
    let mut host = ctx.alloc_pinned::<u32>(1)?;
    unsafe { stream.copy_dtoh_async(&mut host, &mismatches)? };
    stream.synchronize()?;
    Ok(host[0])
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    if !ctx.vmm_supported()? {
        println!("skip: no VMM");
        return Ok(());
    }
    println!("{} stale reads", self_test(&ctx, 50)?);
    Ok(())
}
