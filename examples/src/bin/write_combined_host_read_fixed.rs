//! The fix of `write_combined_host_read`: the same readback into pinned memory that is not
//! write-combined (`Context::alloc_pinned`, `cuMemAllocHost`), then read on the host. The buggy
//! version (`write_combined_host_read_bug`) reads back into write-combined memory.
//!
//! The program copies 64 MiB from the device (events time it) and reads it on the host twice
//! (a sequential sum, and one read per 64-byte line in scattered order), best of 5, on device 0:
//! the host reads cached memory.

use cuda_lint_examples::{MIB, gbps, open_gpu, row, time_host_reads};
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
    let mut copy_ms = f32::MAX;
    for _ in 0..RUNS {
        timer.start(&s)?;
        s.copy_dtoh(&mut host, &dev)?;
        timer.stop(&s)?;
        copy_ms = copy_ms.min(timer.elapsed_ms()?);
    }
    let (sum, seq_ms, strided_ms) = time_host_reads(&host, RUNS);

    row("", "this run", "");
    row(
        "readback, best of 5 (events)",
        &format!("{copy_ms:.2} ms, {:.1} GB/s", gbps(BYTES, copy_ms)),
        "",
    );
    row("host: sequential sum, best of 5", &format!("{seq_ms:.2} ms"), "");
    row(
        "host: one read per 64-byte line, scattered",
        &format!("{strided_ms:.2} ms"),
        "",
    );
    println!("sum = {sum} (expected {})", BYTES / 4);
    println!(
        "=> host reads of cached pinned memory: {seq_ms:.1} ms sequential, {strided_ms:.1} ms scattered, for 64 MiB"
    );
    Ok(())
}
