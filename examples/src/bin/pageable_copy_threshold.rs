//! Where pinned memory starts to pay: the size below which `pageable_async_copy` stays quiet.
//!
//! For each size from 256 B to 64 MiB the program copies host -> device and device -> host with
//! `copy_*_async` from an ordinary `Vec<u8>` (pageable) and from a `PinnedBuffer<u8>`, and
//! measures, median of many runs after warm-ups:
//! - `call`: the time the host spends inside the "async" call (what pinned memory gives back to
//!   the host: from pinned memory the call only enqueues);
//! - `done`: the time from the call until the copy has finished (`synchronize` included).
//!
//! A small copy is latency-bound either way: the figures show the size at which the pageable
//! copy's cost over the pinned one exceeds a few microseconds and a few tens of percent, which
//! is where the lint's default threshold comes from (`lint/benches/pinned-threshold/`).

use std::time::Instant;

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::Error;

const SIZES: &[usize] = &[
    256,
    1 << 10,
    4 << 10,
    16 << 10,
    64 << 10,
    256 << 10,
    1 << 20,
    4 << 20,
    16 << 20,
    64 << 20,
];

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() -> Result<(), Error> {
    println!("pageable_copy_threshold: pageable vs pinned async copies, 256 B to 64 MiB");
    let Some(ctx) = open_gpu("pageable_copy_threshold")? else {
        return Ok(());
    };
    let s = ctx.new_stream()?;
    let max = *SIZES.last().unwrap();
    let mut pageable: Vec<u8> = vec![1u8; max];
    let mut pinned = ctx.alloc_pinned::<u8>(max)?;
    pinned.fill(1);
    println!(
        "{:>10} {:>4} | {:>11} {:>11} | {:>11} {:>11} | {:>9} {:>9}",
        "bytes", "dir", "pageable us", "(done)", "pinned us", "(done)", "extra us", "ratio"
    );
    for &n in SIZES {
        let runs = if n >= 16 << 20 { 15 } else { 200 };
        let mut dev = ctx.alloc::<u8>(n)?;
        for dir in ["htod", "dtoh"] {
            let mut call = [Vec::new(), Vec::new()];
            let mut done = [Vec::new(), Vec::new()];
            for run in 0..runs + 5 {
                for (which, src_pinned) in [(0, false), (1, true)] {
                    s.synchronize()?;
                    let t0 = Instant::now();
                    // SAFETY: the host buffers are neither written nor freed before the
                    // `synchronize` below; the pageable copies are the measured subject.
                    unsafe {
                        match (dir, src_pinned) {
                            ("htod", false) => s.copy_htod_async(&mut dev, &pageable[..n])?, // cuda_lint::pageable_async_copy
                            ("htod", true) => s.copy_htod_async(&mut dev, &pinned[..n])?,
                            (_, false) => s.copy_dtoh_async(&mut pageable[..n], &dev)?, // cuda_lint::pageable_async_copy
                            (_, true) => s.copy_dtoh_async(&mut pinned[..n], &dev)?,
                        }
                    }
                    let t_call = t0.elapsed().as_secs_f64() * 1e6;
                    s.synchronize()?;
                    let t_done = t0.elapsed().as_secs_f64() * 1e6;
                    if run >= 5 {
                        call[which].push(t_call);
                        done[which].push(t_done);
                    }
                }
            }
            let (pc, pd) = (median(call[0].clone()), median(done[0].clone()));
            let (qc, qd) = (median(call[1].clone()), median(done[1].clone()));
            println!(
                "{n:>10} {dir:>4} | {pc:>11.1} {pd:>11.1} | {qc:>11.1} {qd:>11.1} | {:>9.1} {:>9.2}",
                pd - qd,
                pd / qd
            );
        }
    }
    println!(
        "=> extra us: what the pageable copy costs over the pinned one until it is done; \
         ratio: pageable / pinned"
    );
    Ok(())
}
