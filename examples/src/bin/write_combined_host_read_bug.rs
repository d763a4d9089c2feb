//! The `write_combined_host_read` misuse, really happening: a readback into write-combined
//! pinned memory (`PinnedFlags { write_combined: true, .. }`, what `cudaHostAllocWriteCombined`
//! allocates in seed 000 and what cudarc 0.19's `alloc_pinned` always allocates), then read on
//! the host.
//!
//! Write-combined memory is not cached by the CPU: the readback itself is fast, but every host
//! read of the result goes over the bus, uncached. The program copies 64 MiB from the device
//! (events time it) and reads it on the host twice (`Instant` times it: a sequential sum, and one
//! read per 64-byte line in scattered order), best of 5, on device 0. The fix
//! (`write_combined_host_read_fixed`) reads back into pinned memory without the flag.

use cuda_lint_examples::{MIB, gbps, open_gpu, row, time_host_reads};
use cuda_lint_runtime::{Error, EventTimer, PinnedFlags};

const BYTES: usize = 64 * MIB;
const RUNS: usize = 5;

fn main() -> Result<(), Error> {
    println!("write_combined_host_read (bug): 64 MiB read back into write-combined pinned memory, summed on the host");
    let Some(ctx) = open_gpu("write_combined_host_read_bug")? else {
        return Ok(());
    };
    let s = ctx.new_stream()?;
    let dev = s.clone_htod(&vec![1u32; BYTES / 4])?;
    let flags = PinnedFlags {
        write_combined: true,
        ..PinnedFlags::default()
    };
    let mut host = ctx.alloc_pinned_with_flags::<u32>(BYTES / 4, flags)?;

    let timer = EventTimer::new(&ctx)?;
    let mut copy_ms = f32::MAX;
    for _ in 0..RUNS {
        timer.start(&s)?;
        s.copy_dtoh(&mut host, &dev)?;
        timer.stop(&s)?;
        copy_ms = copy_ms.min(timer.elapsed_ms()?);
    }
    let (sum, seq_ms, strided_ms) = time_host_reads(&host, RUNS); // cuda_lint::write_combined_host_read

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
        "=> host reads of write-combined memory: {seq_ms:.1} ms sequential, {strided_ms:.1} ms scattered, for 64 MiB"
    );
    Ok(())
}
