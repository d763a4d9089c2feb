//! The `pageable_async_copy` misuse, really happening: an "async" host-to-device copy
//! (`Stream::copy_htod_async`) of 256 MiB from a `Vec<u8>`, i.e. from pageable memory.
//!
//! The driver cannot DMA from pageable memory: it stages the data through its own pinned buffer
//! while the host waits, so the call blocks for about the whole transfer and nothing overlaps.
//! The program measures, on device 0:
//! - the bandwidth, best of 10 copies timed with events (after 3 warm-ups);
//! - the time the host spent inside the "async" call, average of the same 10 (`Instant`);
//! - overlap: a ~20 ms spin kernel on stream A, then the copy on stream B; the time spent inside
//!   the copy call, and the total until both have finished.
//!
//! The same measurement in CUDA C++ (`anchors/cuda-cpp/copy_bench.cu`) on an H200 gave 14.6 GB/s,
//! 20.07 ms blocked per call, and 22.73 ms in the call / 22.76 ms total next to a 20 ms kernel;
//! the fix (`pageable_async_copy_fixed`, pinned memory) gave 55.6 GB/s, 0 ms, 0 ms / 20.01 ms.

use std::time::Instant;

use cuda_lint_examples::{MIB, Spin, gbps, ms_since, open_gpu, row};
use cuda_lint_runtime::{Error, EventTimer};

const BYTES: usize = 256 * MIB;
const WARMUPS: usize = 3;
const RUNS: usize = 10;
const KERNEL_MS: f64 = 20.0;

fn main() -> Result<(), Error> {
    println!("pageable_async_copy (bug): 256 MiB Stream::copy_htod_async from a Vec (pageable)");
    let Some(ctx) = open_gpu("pageable_async_copy_bug")? else {
        return Ok(());
    };
    let s = ctx.new_stream()?;
    let s2 = ctx.new_stream()?;
    let spin = Spin::new(&ctx, &s)?;
    let mut dev = ctx.alloc::<u8>(BYTES)?;

    // Pageable host memory: an ordinary Vec, every page written (and so present) before use.
    let host: Vec<u8> = vec![1u8; BYTES];

    // Bandwidth (events) and time inside the call (host clock), 3 warm-ups then 10 runs.
    let timer = EventTimer::new(&ctx)?;
    let mut best_gbps = 0.0f64;
    let mut blocked_ms = 0.0f64;
    for run in 0..WARMUPS + RUNS {
        timer.start(&s)?;
        let t0 = Instant::now();
        // SAFETY: `host` is neither written nor freed before the copy has completed. It is
        // memory-safe, but from a Vec the driver stages the copy while the host waits.
        unsafe { s.copy_htod_async(&mut dev, &host)? }; // cuda_lint::pageable_async_copy
        let call_ms = ms_since(t0);
        timer.stop(&s)?;
        let gpu_ms = timer.elapsed_ms()?;
        if run >= WARMUPS {
            best_gbps = best_gbps.max(gbps(BYTES, gpu_ms));
            blocked_ms += call_ms;
        }
    }
    let blocked_avg = blocked_ms / RUNS as f64;

    // Overlap: a ~20 ms kernel on stream `s`, then the copy on stream `s2`.
    let spin_alone = spin.time(&s, KERNEL_MS)?;
    spin.launch(&s, KERNEL_MS)?;
    let t0 = Instant::now();
    // SAFETY: as above; the same copy from the Vec, while the kernel runs on the other stream.
    unsafe { s2.copy_htod_async(&mut dev, &host)? }; // cuda_lint::pageable_async_copy
    let in_call = ms_since(t0);
    ctx.synchronize()?;
    let total = ms_since(t0);

    println!(
        "spin kernel: {spin_alone:.2} ms alone (events; SM clock {:.0} MHz, reported {:.0} MHz)",
        spin.calibrated_mhz(),
        spin.nominal_mhz()
    );
    row("", "this run", "C++ (H200)");
    row(
        &format!("bandwidth, best of {RUNS} (events)"),
        &format!("{best_gbps:.1} GB/s"),
        "14.6 GB/s",
    );
    row(
        "host blocked in the async call, avg",
        &format!("{blocked_avg:.2} ms"),
        "20.07 ms",
    );
    row("with a 20 ms kernel on another stream:", "", "");
    row("  time inside the copy call", &format!("{in_call:.2} ms"), "22.73 ms");
    row("  total until both finished", &format!("{total:.2} ms"), "22.76 ms");
    if blocked_avg > 1.0 {
        println!(
            "=> the \"async\" copy from pageable memory blocked the host {blocked_avg:.1} ms per \
             call and ran at {best_gbps:.1} GB/s; next to the kernel the call returned only after \
             {in_call:.1} ms"
        );
    } else {
        println!(
            "=> unexpected: the copy from pageable memory did not block the host \
             ({blocked_avg:.2} ms per call); this driver may stage pageable copies differently"
        );
    }
    Ok(())
}
