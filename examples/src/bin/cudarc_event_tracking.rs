//! What cuda-lint's cudarc table assumes about cudarc 0.19's event tracking, checked on a GPU:
//! each scenario below runs five times, with a 50 ms spin kernel ahead of the work so that a
//! read that does not wait sees the old contents, and prints how many runs read stale data.
//!
//! cudarc records events on what its calls use, and waits for them (`PinnedHostSlice::as_slice`,
//! `UnifiedSlice::as_slice`, the next use on another stream, a slice's drop), only while its
//! context has more than one stream and event tracking is on. The lines cuda-lint flags end in a
//! comment naming the lint (the dogfood test checks that exactly those are reported):
//!
//! - A. One stream: `memcpy_dtoh` into pinned memory, then `as_slice`: it does not wait. Flagged.
//! - B. The same after a second stream was made: `as_slice` waits. Not flagged.
//! - C. `device_ptr_mut`'s guard dropped before a raw memset (`let (ptr, _) = ..`): another
//!   stream's copy does not wait for the memset. Flagged.
//! - D. The guard kept until the memset is enqueued: the copy waits. Not flagged.
//! - E. One stream, a kernel writes a `UnifiedSlice`, `as_slice`: launches record a unified
//!   slice's event whatever the context's state, so it waits. Not flagged.
//! - F. One stream, a device-to-device copy writes a `UnifiedSlice`, `as_slice`: copies record
//!   it only while the context manages synchronization; it does not wait. Flagged.
//!
//! Results (H200, CUDA 13.0, 2026-11-21) are in `runtime/gpu-results/`.

use std::sync::Arc;

use cuda_lint_examples::open_gpu;
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void spin(long long cycles) {
    long long start = clock64();
    while (clock64() - start < cycles) {}
}
extern "C" __global__ void fill(float* d, unsigned int n, float v) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = v;
}
"#;

/// 4M floats: 16 MiB.
const N: usize = 1 << 22;
const RUNS: usize = 5;
/// About 50 ms of GPU time at ~2 GHz.
const SPIN_CYCLES: i64 = 100_000_000;

struct Kernels {
    spin: CudaFunction,
    fill: CudaFunction,
}

fn load(ctx: &Arc<CudaContext>) -> Result<Kernels, DriverError> {
    let module = ctx.load_module(compile_ptx(SRC).expect("the kernels compile with NVRTC"))?;
    Ok(Kernels {
        spin: module.load_function("spin")?,
        fill: module.load_function("fill")?,
    })
}

/// Keeps `s` busy for about 50 ms.
fn spin(s: &Arc<CudaStream>, k: &Kernels) -> Result<(), DriverError> {
    let one = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let mut launch = s.launch_builder(&k.spin);
    launch.arg(&SPIN_CYCLES);
    // SAFETY: `spin` takes one `long long` and touches no memory.
    unsafe { launch.launch(one) }?;
    Ok(())
}

/// Fills `d` with `v` on `s`.
fn fill(s: &Arc<CudaStream>, k: &Kernels, d: &mut CudaSlice<f32>, v: f32) -> Result<(), DriverError> {
    let n = N as u32;
    let mut launch = s.launch_builder(&k.fill);
    launch.arg(d).arg(&n).arg(&v);
    // SAFETY: `d` holds `n` floats; one thread per element.
    unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
    Ok(())
}

fn count_stale(values: &[f32], want: f32) -> usize {
    values.iter().filter(|&&x| x != want).count()
}

/// A: one stream, pinned readback through `as_slice`.
fn pinned_one_stream() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let k = load(&ctx)?;
    let s = ctx.default_stream();
    let mut d = s.alloc_zeros::<f32>(N)?;
    let mut h = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0)? };
    h.as_mut_slice()?.fill(-1.0);
    let mut stale_runs = 0;
    for r in 0..RUNS {
        spin(&s, &k)?;
        fill(&s, &k, &mut d, r as f32)?;
        s.memcpy_dtoh(&d, &mut h)?;
        let stale = count_stale(h.as_slice()?, r as f32); // cuda_lint::missing_sync
        stale_runs += usize::from(stale > 0);
        s.synchronize()?;
    }
    Ok(stale_runs)
}

/// B: the same once the context has a second stream.
fn pinned_two_streams() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let _second = ctx.new_stream()?;
    let k = load(&ctx)?;
    let s = ctx.default_stream();
    let mut d = s.alloc_zeros::<f32>(N)?;
    let mut h = unsafe { ctx.alloc_pinned_with_flags::<f32>(N, 0)? };
    h.as_mut_slice()?.fill(-1.0);
    let mut stale_runs = 0;
    for r in 0..RUNS {
        spin(&s, &k)?;
        fill(&s, &k, &mut d, r as f32)?;
        s.memcpy_dtoh(&d, &mut h)?;
        let stale = count_stale(h.as_slice()?, r as f32);
        stale_runs += usize::from(stale > 0);
        s.synchronize()?;
    }
    Ok(stale_runs)
}

/// C: the guard of `device_ptr_mut` dropped before the raw memset it was for.
fn guard_dropped_early() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let k = load(&ctx)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let mut d = writer.alloc_zeros::<u8>(N)?;
    let mut h = unsafe { ctx.alloc_pinned_with_flags::<u8>(N, 0)? };
    let mut stale_runs = 0;
    for r in 0..RUNS {
        let value = (r + 1) as u8;
        let (ptr, _) = d.device_ptr_mut(&writer);
        // The guard recorded `d`'s write event already: the spin and the memset come after it.
        spin(&writer, &k)?;
        unsafe { result::memset_d8_async(ptr, value, N, writer.cu_stream())? };
        reader.memcpy_dtoh(&d, &mut h)?; // cuda_lint::missing_sync
        reader.synchronize()?;
        stale_runs += usize::from(h.as_slice()?.iter().any(|&x| x != value));
        ctx.synchronize()?;
    }
    Ok(stale_runs)
}

/// D: the guard kept until the memset is enqueued.
fn guard_kept() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let k = load(&ctx)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let mut d = writer.alloc_zeros::<u8>(N)?;
    let mut h = unsafe { ctx.alloc_pinned_with_flags::<u8>(N, 0)? };
    let mut stale_runs = 0;
    for r in 0..RUNS {
        let value = (r + 1) as u8;
        let (ptr, record) = d.device_ptr_mut(&writer);
        spin(&writer, &k)?;
        unsafe { result::memset_d8_async(ptr, value, N, writer.cu_stream())? };
        // Recorded now: the event covers the spin and the memset.
        drop(record);
        reader.memcpy_dtoh(&d, &mut h)?;
        reader.synchronize()?;
        stale_runs += usize::from(h.as_slice()?.iter().any(|&x| x != value));
        ctx.synchronize()?;
    }
    Ok(stale_runs)
}

/// E: one stream, a kernel writes unified memory, `as_slice`.
fn unified_written_by_a_kernel() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let k = load(&ctx)?;
    let s = ctx.default_stream();
    let mut u = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    u.as_mut_slice()?.fill(-1.0);
    let mut stale_runs = 0;
    for r in 0..RUNS {
        let (n, v) = (N as u32, r as f32);
        spin(&s, &k)?;
        let mut launch = s.launch_builder(&k.fill);
        launch.arg(&mut u).arg(&n).arg(&v);
        // SAFETY: `u` holds `n` floats; one thread per element.
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        let stale = count_stale(u.as_slice()?, v);
        stale_runs += usize::from(stale > 0);
        s.synchronize()?;
    }
    Ok(stale_runs)
}

/// F: one stream, a device-to-device copy writes unified memory, `as_slice`.
fn unified_written_by_a_copy() -> Result<usize, DriverError> {
    let ctx = CudaContext::new(0)?;
    let k = load(&ctx)?;
    let s = ctx.default_stream();
    let mut src = s.alloc_zeros::<f32>(N)?;
    let mut u = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    u.as_mut_slice()?.fill(-1.0);
    let mut stale_runs = 0;
    for r in 0..RUNS {
        let v = r as f32;
        fill(&s, &k, &mut src, v)?;
        s.synchronize()?;
        spin(&s, &k)?;
        s.memcpy_dtod(&src, &mut u)?;
        let stale = count_stale(u.as_slice()?, v); // cuda_lint::missing_sync
        stale_runs += usize::from(stale > 0);
        s.synchronize()?;
    }
    Ok(stale_runs)
}

/// One scenario: it returns how many elements came back stale.
type Scenario = fn() -> Result<usize, DriverError>;

fn main() -> Result<(), DriverError> {
    println!("cudarc_event_tracking: when cudarc 0.19's host views and other streams wait");
    // Opened with this project's runtime first: it reports a missing driver as an error, where
    // cudarc's dynamic loading would panic.
    // NVRTC too: the runtime finds it in the CUDA install's directories, and cudarc's loader
    // (which looks by name only) then finds the library already loaded.
    let nvrtc = match open_gpu("cudarc_event_tracking") {
        Ok(Some(_)) => cuda_lint_runtime::nvrtc_version(),
        Ok(None) => return Ok(()),
        Err(e) => Err(e),
    };
    match nvrtc {
        Ok((major, minor)) => println!("NVRTC {major}.{minor}"),
        Err(e) => {
            println!("cudarc_event_tracking: cannot open the GPU or NVRTC: {e}");
            std::process::exit(1);
        }
    }
    let scenarios: [(&str, Scenario, bool); 6] = [
        ("A pinned as_slice, one stream", pinned_one_stream, true),
        ("B pinned as_slice, second stream made", pinned_two_streams, false),
        ("C device_ptr_mut guard dropped early", guard_dropped_early, true),
        ("D guard kept until the memset is enqueued", guard_kept, false),
        (
            "E unified written by a kernel, one stream",
            unified_written_by_a_kernel,
            false,
        ),
        (
            "F unified written by a copy, one stream",
            unified_written_by_a_copy,
            true,
        ),
    ];
    for (name, run, flagged) in scenarios {
        let stale = run()?;
        let lint = if flagged { "flagged" } else { "not flagged" };
        println!("{name:<44} {stale} of {RUNS} runs stale   (cuda-lint: {lint})");
    }
    Ok(())
}
