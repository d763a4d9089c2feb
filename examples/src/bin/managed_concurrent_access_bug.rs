//! The `managed_concurrent_access` misuse: the host reads and writes managed memory while a
//! kernel that does not use it is still running.
//!
//! On a device whose `CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS` is 0 (GPUs before Pascal,
//! GPUs under Windows, some Jetsons), the GPU owns all managed memory while any kernel runs,
//! and the host access faults (a segmentation fault). Where the attribute is 1, the access is
//! legal. The program prints the attribute, launches a 200 ms spin kernel on device memory, and
//! touches a managed buffer while it runs: on this project's GPU machines (H100, H200 under
//! Linux, attribute 1) the access succeeds, which the program says. The fix
//! (`managed_concurrent_access_fixed`) waits for the kernel first.

use cuda_lint_examples::{SPIN_SRC, open_gpu};
use cuda_lint_runtime::{Error, LaunchConfig};
use cudarc::driver::sys;

fn main() -> Result<(), Error> {
    println!("managed_concurrent_access (bug): host touches managed memory while a kernel runs");
    let Some(ctx) = open_gpu("managed_concurrent_access_bug")? else {
        return Ok(());
    };
    ctx.synchronize()?;
    let mut concurrent = -1;
    // SAFETY: plain attribute query with the context current.
    let status = unsafe {
        sys::cuDeviceGetAttribute(
            &mut concurrent,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS,
            ctx.ordinal() as i32,
        )
    };
    println!("CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS = {concurrent} ({status:?})");
    let spin = ctx.load_cuda(SPIN_SRC)?.function("spin")?;
    let s = ctx.new_stream()?;
    let mut counters = ctx.alloc_managed::<u32>(1024)?;
    counters[0] = 1;
    let khz = i64::from(ctx.properties()?.clock_rate_khz.max(1_000_000));
    let cycles = khz * 200; // about 200 ms
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let start = std::time::Instant::now();
    // SAFETY: `spin(long long)` touches no memory.
    unsafe { s.launch(&spin, one, &[&cycles])? };
    counters[1] = 2; // cuda_lint::managed_concurrent_access
    let touched_after = start.elapsed();
    let running = s.query()?;
    s.synchronize()?;
    println!(
        "host touched managed memory {:.2} ms after the launch; kernel still running then: {}",
        touched_after.as_secs_f64() * 1e3,
        !running
    );
    if concurrent == 1 {
        println!(
            "=> no fault here: this device has concurrent managed access; on one without it \
             (pre-Pascal, Windows, some Jetsons) this access faults"
        );
    } else {
        println!("=> the access did not fault although the device lacks concurrent managed access");
    }
    println!("counters[1] = {}", counters[1]);
    Ok(())
}
