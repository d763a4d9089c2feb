//! The fix of `write_combined_host_read`: the same readback into pinned memory that is not
//! write-combined (`Context::alloc_pinned`, `cuMemAllocHost`), then read on the host. The buggy
//! version (`write_combined_host_read_bug`) reads back into write-combined memory.
//!
//! The program copies 64 MiB from the device (events time it) and sums it on the host
//! (`Instant` times it), best of 5, on device 0: the host reads cached memory.

use std::time::Instant;

use cuda_lint_examples::{MIB, gbps, ms_since, open_gpu, row};
use cuda_lint_runtime::{Error, EventTimer};

const BYTES: usize = 64 * MIB;
const RUNS: usize = 5;

fn main() -> Result<(), Error> {
    println!(
        "write_combined_host_read (fixed): 64 MiB read back into pinned memory (not write-combined), summed on the host"
    );
    let Some(ctx) = open_gpu("write_combined_host_read_fixed")? else {
        return Ok(());
    };
    let s = ctx.new_stream()?;
    let dev = s.clone_htod(&vec![1u32; BYTES / 4])?;
    let mut host = ctx.alloc_pinned::<u32>(BYTES / 4)?;

    let timer = EventTimer::new(&ctx)?;
    let (mut copy_ms, mut read_ms) = (f32::MAX, f64::MAX);
    let mut sum = 0u64;
    for _ in 0..RUNS {
        timer.start(&s)?;
        s.copy_dtoh(&mut host, &dev)?;
        timer.stop(&s)?;
        copy_ms = copy_ms.min(timer.elapsed_ms()?);
        let t0 = Instant::now();
        sum = host.iter().map(|&x| u64::from(x)).sum();
        read_ms = read_ms.min(ms_since(t0));
    }

    row("", "this run", "");
    row(
        "readback, best of 5 (events)",
        &format!("{copy_ms:.2} ms, {:.1} GB/s", gbps(BYTES, copy_ms)),
        "",
    );
    row(
        "host sum of it, best of 5",
        &format!("{read_ms:.2} ms, {:.2} GB/s", BYTES as f64 / read_ms / 1e6),
        "",
    );
    println!("sum = {sum} (expected {})", BYTES / 4);
    println!("=> reading cached pinned memory on the host took {read_ms:.1} ms for 64 MiB");
    Ok(())
}
