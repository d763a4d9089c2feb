//! `managed_concurrent_access_bug` fixed: the host waits for the kernel before it touches the
//! managed buffer, which is safe on every device, with or without concurrent managed access.

use cuda_lint_examples::{SPIN_SRC, open_gpu};
use cuda_lint_runtime::{Error, LaunchConfig};

fn main() -> Result<(), Error> {
    println!("managed_concurrent_access (fixed): the kernel is waited for before the host access");
    let Some(ctx) = open_gpu("managed_concurrent_access_fixed")? else {
        return Ok(());
    };
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
    s.synchronize()?;
    counters[1] = counters[0] + 1;
    println!(
        "host touched managed memory {:.2} ms after the launch, after the kernel finished; counters[1] = {}",
        start.elapsed().as_secs_f64() * 1e3,
        counters[1]
    );
    println!("=> safe on every device");
    Ok(())
}
