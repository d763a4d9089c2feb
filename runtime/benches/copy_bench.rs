//! copy_bench: the runtime layer's launch overhead and pinned copy bandwidth, measured exactly as
//! the C++ program `runtime/bench/reference.cu` measures them with the CUDA runtime API, so that
//! the two can run side by side on one GPU and be compared (`runtime/bench/compare.py`).
//!
//! `harness = false`: a plain program. `cargo bench -p cuda-lint-runtime --bench copy_bench`.
//! Without a CUDA driver or device it prints `SKIP copy_bench: <reason>` and exits 0.
//!
//! Method (identical in `reference.cu`):
//! - one non-blocking stream; 256 MiB of device memory and 256 MiB of pinned host memory
//!   (`cuMemHostAlloc`, flags 0, filled with 1s);
//! - H2D, then D2H: 3 warm-up copies, a synchronize, then 10 copies each timed with two events
//!   recorded on the stream around it (`cuEventSynchronize` on the second); the best of the 10,
//!   in GB/s (10^9 bytes per second);
//! - an empty kernel `<<<1, 1>>>`: 1000 warm-up launches and a synchronize, then 10 blocks of
//!   10000 launches each followed by a synchronize; per launch, the best block's host time of
//!   the launch loop (`launch_host_us`), and including the synchronize (`launch_e2e_us`).
//!
//! Output, one `key value` line per metric (lines starting with `#` are comments):
//! ```text
//! h2d_pinned_gbps 55.31
//! d2h_pinned_gbps 55.10
//! launch_host_us 2.612
//! launch_e2e_us 2.620
//! ```

use std::time::Instant;

use cuda_lint_runtime::{Context, DeviceBuffer, EventTimer, LaunchConfig, PinnedBuffer, Result};
use cuda_lint_runtime::{Stream, driver_version};

const BYTES: usize = 256 << 20;
const COPY_WARMUPS: usize = 3;
const COPY_RUNS: usize = 10;
const LAUNCH_WARMUPS: usize = 1000;
const LAUNCH_BLOCKS: usize = 10;
const LAUNCHES: u32 = 10_000;

const EMPTY_SRC: &str = r#"extern "C" __global__ void empty() {}"#;

fn main() {
    match run() {
        Ok(()) => {}
        Err(e) if e.is_unavailable() => println!("SKIP copy_bench: {e}"),
        Err(e) => {
            println!("FAILED copy_bench: {e}");
            std::process::exit(1);
        }
    }
}

fn gbps(ms: f32) -> f64 {
    BYTES as f64 / (f64::from(ms) * 1e-3) / 1e9
}

/// Best-of-10 bandwidth of 256 MiB host-to-device copies from pinned memory.
fn h2d(s: &Stream, timer: &EventTimer, dev: &mut DeviceBuffer<u8>, host: &PinnedBuffer<u8>) -> Result<f64> {
    for _ in 0..COPY_WARMUPS {
        // SAFETY: `host` is not written until the stream is synchronized below.
        unsafe { s.copy_htod_async(dev, host)? };
    }
    s.synchronize()?;
    let mut best = 0.0f64;
    for _ in 0..COPY_RUNS {
        timer.start(s)?;
        // SAFETY: as above; `elapsed_ms` waits for the stop event recorded after the copy.
        unsafe { s.copy_htod_async(dev, host)? };
        timer.stop(s)?;
        best = best.max(gbps(timer.elapsed_ms()?));
    }
    Ok(best)
}

/// Best-of-10 bandwidth of 256 MiB device-to-host copies into pinned memory.
fn d2h(s: &Stream, timer: &EventTimer, host: &mut PinnedBuffer<u8>, dev: &DeviceBuffer<u8>) -> Result<f64> {
    for _ in 0..COPY_WARMUPS {
        // SAFETY: `host` is neither read nor written until the stream is synchronized below.
        unsafe { s.copy_dtoh_async(host, dev)? };
    }
    s.synchronize()?;
    let mut best = 0.0f64;
    for _ in 0..COPY_RUNS {
        timer.start(s)?;
        // SAFETY: as above; `elapsed_ms` waits for the stop event recorded after the copy.
        unsafe { s.copy_dtoh_async(host, dev)? };
        timer.stop(s)?;
        best = best.max(gbps(timer.elapsed_ms()?));
    }
    Ok(best)
}

fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let props = ctx.properties()?;
    let dv = driver_version()?;
    println!("# copy_bench (Rust, cuda-lint-runtime over the driver API)");
    println!(
        "# device 0: {} (compute capability {}.{}); driver for CUDA {}.{}",
        props.name,
        props.compute_capability.0,
        props.compute_capability.1,
        dv / 1000,
        (dv % 1000) / 10
    );
    let s = ctx.new_stream()?;
    let timer = EventTimer::new(&ctx)?;
    let mut dev = ctx.alloc::<u8>(BYTES)?;
    let mut host = ctx.alloc_pinned::<u8>(BYTES)?;
    host.fill(1);

    let h2d_gbps = h2d(&s, &timer, &mut dev, &host)?;
    let d2h_gbps = d2h(&s, &timer, &mut host, &dev)?;

    let module = ctx.load_cuda(EMPTY_SRC)?;
    let empty = module.function("empty")?;
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    for _ in 0..LAUNCH_WARMUPS {
        // SAFETY: `empty()` takes no arguments and touches no memory.
        unsafe { s.launch(&empty, one, &[])? };
    }
    s.synchronize()?;
    // Blocks of launches, each ended by a synchronize; the best block counts (launch overhead
    // is a floor that noise only adds to).
    let (mut best_host, mut best_e2e) = (f64::INFINITY, f64::INFINITY);
    for _ in 0..LAUNCH_BLOCKS {
        let t0 = Instant::now();
        for _ in 0..LAUNCHES {
            // SAFETY: as above.
            unsafe { s.launch(&empty, one, &[])? };
        }
        let t1 = Instant::now();
        s.synchronize()?;
        let t2 = Instant::now();
        best_host = best_host.min((t1 - t0).as_secs_f64());
        best_e2e = best_e2e.min((t2 - t0).as_secs_f64());
    }
    let n = f64::from(LAUNCHES);

    println!("h2d_pinned_gbps {h2d_gbps:.2}");
    println!("d2h_pinned_gbps {d2h_gbps:.2}");
    println!("launch_host_us {:.3}", best_host / n * 1e6);
    println!("launch_e2e_us {:.3}", best_e2e / n * 1e6);
    Ok(())
}
