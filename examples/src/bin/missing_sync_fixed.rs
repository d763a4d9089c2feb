//! The fix for `missing_sync`: the host synchronizes the stream before it reads the destination
//! of an async device-to-host copy.
//!
//! As in `missing_sync_bug`: a kernel fills 64M ints (256 MiB) on the device with the run number
//! r, `Stream::copy_dtoh_async` copies them into pinned host memory; here `Stream::synchronize`
//! comes before the host looks at the last 1024 values. Five runs; the program prints how many
//! of them read stale data (must be 0; the bug read stale data in 5 of 5 runs, as did the C++
//! version `anchors/cuda-cpp/missing_sync_stale.cu` on an H200) and how long the host waited.

use std::time::Instant;

use cuda_lint_examples::{ms_since, open_gpu};
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
    println!("missing_sync (fixed): Stream::synchronize before the host reads the copy");
    let Some(ctx) = open_gpu("missing_sync_fixed")? else {
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
        // SAFETY: `h` is neither read nor written until the stream has been synchronized below.
        unsafe { s.copy_dtoh_async(&mut h, &d)? };
        let t0 = Instant::now();
        s.synchronize()?;
        let waited = ms_since(t0);
        let (stale, seen) = stale_in(&h[N - TAIL..], r);
        if stale > 0 {
            stale_runs += 1;
        }
        println!(
            "run {r}: synchronize waited {waited:.2} ms; then the tail held {seen} \
             ({stale} of {TAIL} values stale)"
        );
    }
    println!("missing_sync: {stale_runs} of {RUNS} runs read stale data (the bug: 5 of 5)");
    if stale_runs == 0 {
        println!("=> synchronizing before the read always saw the kernel's values");
        Ok(())
    } else {
        println!("FAILED: stale data after synchronize");
        std::process::exit(1);
    }
}
