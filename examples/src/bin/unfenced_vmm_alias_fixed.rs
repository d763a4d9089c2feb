//! The fix for `unfenced_vmm_alias`: the kernel that writes through one VMM mapping and reads
//! through another mapping of the same physical memory executes `fence.proxy.alias` between the
//! write and the read.
//!
//! As in `unfenced_vmm_alias_bug`: one `PhysicalAllocation` of one granularity is mapped at two
//! virtual ranges A and B; the kernel writes `A[i] = i + 1`, fences, then reads `B[i]` into
//! `out[i]`; 50 launches of n/256 blocks of 256 threads (n = size / 4), A set to 0 before each,
//! `out` copied back and compared with `i + 1`. The program prints the number of stale reads,
//! which must be 0 (the C++ version `anchors/cuda-cpp/vmm_alias.cu` saw 0 with the fence and 32
//! without it on an H200).

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::{Error, LaunchConfig, PhysicalAllocation, VirtualRange};

const LAUNCHES: usize = 50;

/// The kernel: write through alias `a`, fence the alias proxies, read through alias `b`.
/// `#[cuda_lint::kernels]` gives it a typed launch method, `alias::Kernels::write_a_read_b`.
#[cuda_lint::kernels(source = r#"
extern "C" __global__ void write_a_read_b(volatile int* a, volatile int* b, int* out) {
    int i = threadIdx.x + blockIdx.x * blockDim.x;
    a[i] = i + 1;
    asm volatile("fence.proxy.alias;" ::: "memory");
    out[i] = b[i];
}
"#)]
mod alias {}

fn main() -> Result<(), Error> {
    println!("unfenced_vmm_alias (fixed): write alias A, fence.proxy.alias, read alias B");
    let Some(ctx) = open_gpu("unfenced_vmm_alias_fixed")? else {
        return Ok(());
    };
    if !ctx.vmm_supported()? {
        println!("SKIP unfenced_vmm_alias_fixed: this device does not support VMM (cuMemMap)");
        return Ok(());
    }
    let size = ctx.vmm_granularity()?;
    let phys = PhysicalAllocation::new(&ctx, size)?;
    let mut a = VirtualRange::reserve(&ctx, size)?.map(&phys, 0)?;
    let mut b = VirtualRange::reserve(&ctx, size)?.map(&phys, 0)?;
    println!(
        "physical allocation of {} KiB mapped twice: A at {}, B at {} (aliases: {})",
        size / 1024,
        a.device_ptr(),
        b.device_ptr(),
        a.aliases(&b)
    );
    let n = size / 4;
    let mut out = ctx.alloc::<i32>(n)?;
    let k = alias::Kernels::load(&ctx)?;
    let s = ctx.new_stream()?;
    let cfg = LaunchConfig {
        grid: ((n / 256) as u32, 1, 1),
        block: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut host = vec![0i32; n];
    let mut stale = 0usize;
    for _ in 0..LAUNCHES {
        s.memset_d8(&mut a, 0)?;
        // SAFETY: each buffer holds the n ints the n threads touch, and all outlive the kernel
        // (the copy below waits for it); the kernel fences between the write through A and the
        // read through B.
        unsafe { k.write_a_read_b(&s, cfg, &mut a, &mut b, &mut out)? };
        s.copy_dtoh(&mut host, &out)?;
        stale += (0..n).filter(|&i| host[i] != i as i32 + 1).count();
    }
    println!(
        "unfenced_vmm_alias: {stale} stale reads through alias B over {LAUNCHES} launches of {n} \
         threads with the fence (C++ on an H200: 0 with the fence, 32 without)"
    );
    if stale == 0 {
        println!("=> with fence.proxy.alias every read through B saw the write through A");
        Ok(())
    } else {
        println!("FAILED: stale reads despite the fence");
        std::process::exit(1);
    }
}
