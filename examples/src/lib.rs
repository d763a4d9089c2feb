//! Shared helpers of the example programs: opening the GPU (or printing a skip line when there is
//! none), the spin kernel that keeps the GPU busy for a known time, and small figures helpers.
//!
//! Nothing here misuses memory; each misuse, and its fix, is written out in the program that
//! shows it (`src/bin/*.rs`).

use std::time::{Duration, Instant};

use cuda_lint_runtime::{Context, EventTimer, Kernel, LaunchConfig, Result, Stream};

/// One mebibyte.
pub const MIB: usize = 1 << 20;

/// Opens device 0 and prints what it is.
///
/// Without a CUDA driver or device (`Error::is_unavailable`) it prints
/// `SKIP <program>: ...` and returns `Ok(None)`: the program should then exit 0. Any other error
/// is returned.
pub fn open_gpu(program: &str) -> Result<Option<Context>> {
    let ctx = match Context::new(0) {
        Ok(ctx) => ctx,
        Err(e) if e.is_unavailable() => {
            println!("SKIP {program}: no CUDA GPU here ({e})");
            return Ok(None);
        }
        Err(e) => return Err(e),
    };
    let props = ctx.properties()?;
    let dv = cuda_lint_runtime::driver_version()?;
    println!(
        "device 0: {} (compute capability {}.{}, {} MiB), driver for CUDA {}.{}",
        props.name,
        props.compute_capability.0,
        props.compute_capability.1,
        props.total_memory_bytes / MIB,
        dv / 1000,
        (dv % 1000) / 10
    );
    Ok(Some(ctx))
}

/// CUDA source of the spin kernel: one thread that busy-waits `cycles` SM clock cycles
/// (`clock64()`), exactly as `anchors/cuda-cpp/copy_bench.cu` does.
pub const SPIN_SRC: &str = r#"
extern "C" __global__ void spin(long long cycles) {
    long long t = clock64();
    while (clock64() - t < cycles) {}
}
"#;

/// The spin kernel, compiled with NVRTC, and how many `clock64()` cycles make a millisecond.
pub struct Spin {
    kernel: Kernel,
    nominal_cycles_per_ms: f64,
    cycles_per_ms: f64,
}

impl Spin {
    /// Compiles and loads [`SPIN_SRC`] and calibrates it on `stream`.
    ///
    /// The starting point is the clock rate the device reports (`CU_DEVICE_ATTRIBUTE_CLOCK_RATE`,
    /// kHz, i.e. cycles per millisecond; what the C++ reference uses). A 10 ms spin is then timed
    /// with events and the cycles per millisecond corrected, so that [`Spin::launch`] with
    /// `20.0` really keeps the GPU busy for about 20 ms even when the SM clock differs from the
    /// reported rate.
    pub fn new(ctx: &Context, stream: &Stream) -> Result<Spin> {
        let module = ctx.load_cuda(SPIN_SRC)?;
        let kernel = module.function("spin")?;
        let khz = ctx.properties()?.clock_rate_khz;
        let nominal = if khz > 0 { f64::from(khz) } else { 1.5e6 };
        let mut spin = Spin {
            kernel,
            nominal_cycles_per_ms: nominal,
            cycles_per_ms: nominal,
        };
        // The first launch also loads the module onto the device; keep it out of the timing.
        spin.launch(stream, 0.1)?;
        stream.synchronize()?;
        let measured = spin.time(stream, 10.0)?;
        if measured > 0.5 {
            spin.cycles_per_ms = nominal * 10.0 / f64::from(measured);
        }
        Ok(spin)
    }

    /// The clock rate the device reports, in MHz.
    pub fn nominal_mhz(&self) -> f64 {
        self.nominal_cycles_per_ms / 1e3
    }

    /// The SM clock the calibration measured, in MHz.
    pub fn calibrated_mhz(&self) -> f64 {
        self.cycles_per_ms / 1e3
    }

    /// Enqueues one spin of about `ms` milliseconds on `stream` (one block of one thread) and
    /// returns at once.
    pub fn launch(&self, stream: &Stream, ms: f64) -> Result<()> {
        let cycles = (self.cycles_per_ms * ms) as i64;
        let one = LaunchConfig {
            grid: (1, 1, 1),
            block: (1, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: `spin(long long)` takes one 64-bit integer and touches no memory.
        unsafe { stream.launch(&self.kernel, one, &[&cycles]) }
    }

    /// Runs one spin of about `ms` milliseconds alone on `stream` and returns its GPU time in
    /// milliseconds (events).
    pub fn time(&self, stream: &Stream, ms: f64) -> Result<f32> {
        let timer = EventTimer::new(stream.context())?;
        timer.start(stream)?;
        self.launch(stream, ms)?;
        timer.stop(stream)?;
        timer.elapsed_ms()
    }
}

/// Bandwidth in GB/s (10^9 bytes per second) of `bytes` moved in `ms` milliseconds, as the C++
/// reference computes it.
pub fn gbps(bytes: usize, ms: f32) -> f64 {
    bytes as f64 / (f64::from(ms) * 1e-3) / 1e9
}

/// A duration in milliseconds.
pub fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Milliseconds since `t0`.
pub fn ms_since(t0: Instant) -> f64 {
    ms(t0.elapsed())
}

/// Prints one row of a "this run vs. reference" table: the label, this run's figure and the
/// reference figure, in aligned columns.
pub fn row(label: &str, this_run: &str, reference: &str) {
    println!("  {label:<40} {this_run:>12}   {reference:>12}");
}

/// The name of a Linux signal number (`11` is `"SIGSEGV"`), or `"unknown signal"`.
pub fn signal_name(sig: i32) -> &'static str {
    match sig {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        5 => "SIGTRAP",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        _ => "unknown signal",
    }
}

/// Times two host reads of `data`, best of `runs`: a sequential sum (what a readback's consumer
/// does; the compiler vectorizes it), and a strided walk reading one value per 64-byte line in a
/// scattered order (what a lookup into the readback does). Returns (sum, sequential ms, strided
/// ms).
pub fn time_host_reads(data: &[u32], runs: usize) -> (u64, f64, f64) {
    let (mut seq_ms, mut strided_ms) = (f64::MAX, f64::MAX);
    let mut sum = 0u64;
    let lines = data.len() / 16;
    for _ in 0..runs {
        let t0 = Instant::now();
        sum = data.iter().map(|&x| u64::from(x)).sum();
        seq_ms = seq_ms.min(ms_since(t0));
        let t0 = Instant::now();
        let mut acc = 0u64;
        // Visit every line once, in an order that defeats the prefetcher (an odd multiplier
        // modulo a power of two is a permutation).
        for i in 0..lines {
            let line = i.wrapping_mul(40_503) & (lines - 1);
            acc = acc.wrapping_add(u64::from(data[line * 16]));
        }
        strided_ms = strided_ms.min(ms_since(t0));
        std::hint::black_box(acc);
    }
    (sum, seq_ms, strided_ms)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn figures() {
        // 256 MiB in 4.83 ms is the C++ reference's pinned 55.6 GB/s.
        assert!((gbps(256 * MIB, 4.83) - 55.6).abs() < 0.1);
        assert_eq!(ms(Duration::from_micros(2500)), 2.5);
        assert_eq!(signal_name(11), "SIGSEGV");
        assert_eq!(signal_name(7), "SIGBUS");
        assert_eq!(signal_name(99), "unknown signal");
    }

    /// Without a GPU, opening one prints a skip line and is not an error.
    #[test]
    fn open_gpu_never_fails_for_lack_of_a_gpu() {
        match open_gpu("lib test") {
            Ok(_) => {}
            Err(e) => assert!(!e.is_unavailable(), "{e}"),
        }
    }
}
