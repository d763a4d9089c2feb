//! The fix of `relies_on_implicit_sync_bug`: `Stream::synchronize` before `cuMemFree`, a wait
//! the driver API documents, where a reader looks for it. Same kernel and timing as the bug.

use std::ffi::c_void;
use std::time::Instant;

use cuda_lint_examples::{ms_since, open_gpu};
use cuda_lint_runtime::LaunchConfig;
use cudarc::driver::sys::{self, CUdeviceptr};

const SRC: &str = r#"
extern "C" __global__ void consume(const float* tmp, float* out, long long cycles) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {}
    out[0] = tmp[0] * 2.0f;
}
"#;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("relies_on_implicit_sync (fixed): the stream is synchronized before cuMemFree");
    let Some(ctx) = open_gpu("relies_on_implicit_sync_fixed")? else {
        return Ok(());
    };
    let consume = ctx.load_cuda(SRC)?.function("consume")?;
    let s = ctx.new_stream()?;
    let khz = i64::from(ctx.properties()?.clock_rate_khz.max(1_000_000));
    let cycles = khz * 200; // about 200 ms
    let input = 21.0f32;
    let (mut tmp, mut out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let bytes = std::mem::size_of::<f32>();
    // SAFETY: out-pointers to locals; `input` outlives the blocking copy.
    unsafe {
        sys::cuMemAlloc_v2(&mut tmp, bytes).result().expect("cuMemAlloc");
        sys::cuMemAlloc_v2(&mut out, bytes).result().expect("cuMemAlloc");
        sys::cuMemcpyHtoD_v2(tmp, (&input as *const f32).cast::<c_void>(), bytes)
            .result()
            .expect("cuMemcpyHtoD");
    }
    let one = LaunchConfig {
        grid: (1, 1, 1),
        block: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: `consume(const float*, float*, long long)` gets two device pointers and a count.
    unsafe { s.launch(&consume, one, &[&tmp, &out, &cycles]).expect("cuLaunchKernel") };
    let t0 = Instant::now();
    s.synchronize().expect("cuStreamSynchronize");
    let wait_ms = ms_since(t0);
    let t1 = Instant::now();
    // SAFETY: `tmp` was allocated above and is freed once, after the kernel that read it.
    unsafe { sys::cuMemFree_v2(tmp).result().expect("cuMemFree") };
    let free_ms = ms_since(t1);
    let mut result = 0.0f32;
    // SAFETY: `result` is a live local of `bytes` bytes; the blocking copy waits for the stream.
    unsafe {
        sys::cuMemcpyDtoH_v2((&mut result as *mut f32).cast::<c_void>(), out, bytes)
            .result()
            .expect("cuMemcpyDtoH");
        sys::cuMemFree_v2(out).result()?;
    }
    println!(
        "relies_on_implicit_sync_fixed: Stream::synchronize waited {wait_ms:.1} ms, then cuMemFree(tmp) took {free_ms:.2} ms; out = {result:.1} (expected 42.0)"
    );
    Ok(())
}
