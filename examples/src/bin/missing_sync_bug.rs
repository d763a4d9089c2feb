//! The `missing_sync` misuse, really happening: the host reads the destination of an async
//! device-to-host copy before synchronizing the stream.
//!
//! A kernel fills 64M ints (256 MiB) on the device with the run number r, `Stream::copy_dtoh_async`
//! copies them into pinned host memory, and the host then copies out the last 1024 values at once,
//! before `Stream::synchronize`. The copy takes milliseconds; the host is there in microseconds,
//! so it sees what was in the buffer before (-1 at first, then the previous run's value). Five
//! runs; the program prints how many of them read stale data, and what the tail held before and
//! after synchronizing.
//!
//! The C++ version (`anchors/cuda-cpp/missing_sync_stale.cu`) read stale data in 5 of 5 runs on an
//! H200, and compute-sanitizer (memcheck, racecheck, synccheck, initcheck) reported 0 errors. The
//! fix (`missing_sync_fixed`) synchronizes first and reads stale data in 0 of 5 runs.

use cuda_lint_examples::open_gpu;
use cuda_lint_runtime::{Error, LaunchConfig};

/// 64M ints: 256 MiB.
const N: usize = 64 << 20;
/// How many values at the end of the buffer the host checks.
const TAIL: usize = 1024;
const RUNS: i32 = 5;

/// The kernel; `#[cuda_lint::kernels]` gives it a typed launch method, `fill::Kernels::fill`.
#[cuda_lint::kernels(source = r#"
extern "C" __global__ void fill(int* d, size_t n, int v) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) d[i] = v;
}
"#)]
mod fill {}

/// How many of `tail` differ from `want`, and the first value of `tail`.
fn stale_in(tail: &[i32], want: i32) -> (usize, i32) {
    let stale = tail.iter().filter(|&&v| v != want).count();
    (stale, tail.first().copied().unwrap_or(want))
}

fn main() -> Result<(), Error> {
    println!("missing_sync (bug): the host reads an async copy's destination before synchronize");
    let Some(ctx) = open_gpu("missing_sync_bug")? else {
        return Ok(());
    };
    let k = fill::Kernels::load(&ctx)?;
    let s = ctx.new_stream()?;
    let mut d = ctx.alloc::<i32>(N)?;
    let mut h = ctx.alloc_pinned::<i32>(N)?;
    h.fill(-1);
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let mut stale_runs = 0;
    for r in 0..RUNS {
        // SAFETY: `fill` gets a buffer of `N` ints that outlives the kernel.
        unsafe { k.fill(&s, cfg, &mut d, N, r)? };
        // SAFETY: `h` must be neither read nor written until the stream has been synchronized;
        // the line after this one breaks that on purpose.
        unsafe { s.copy_dtoh_async(&mut h, &d)? };
        let tail = h[N - TAIL..].to_vec(); // cuda_lint::missing_sync
        s.synchronize()?;
        let (stale, seen) = stale_in(&tail, r);
        let (after, _) = stale_in(&h[N - TAIL..], r);
        if stale > 0 {
            stale_runs += 1;
        }
        println!(
            "run {r}: before synchronize the tail held {seen} ({stale} of {TAIL} values stale); \
             after synchronize {after} stale"
        );
    }
    println!("missing_sync: {stale_runs} of {RUNS} runs read stale data (C++ on an H200: 5 of 5)");
    if stale_runs > 0 {
        println!("=> reading before Stream::synchronize saw the buffer's old contents");
    } else {
        println!("=> no stale read this time: the race was won by the copy (timing-dependent)");
    }
    Ok(())
}
