//! The `uncapturable_call` misuse through cudarc: a time step is captured into a graph, and its
//! scratch buffer is allocated with `cuMemAlloc` (`result::malloc_sync`) inside the capture.
//!
//! Global capture mode prohibits it: the allocation fails with
//! `CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED`, the capture is invalidated, `end_capture` fails, and
//! a program that goes on without the graph computes nothing. The fix
//! (`uncapturable_call_fixed`) allocates before the capture begins.

use cuda_lint_examples::open_gpu;
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, result, sys};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void step(int* out, unsigned long long scratch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int* tmp = (int*)scratch;
    if (i < n) {
        tmp[i] = i + 1;
        out[i] = tmp[i] * 2;
    }
}
"#;

/// 8192 ints: 32 KiB.
const N: usize = 8192;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("uncapturable_call (bug): cuMemAlloc inside a global-mode capture");
    let Some(_gpu) = open_gpu("uncapturable_call_bug")? else {
        return Ok(());
    };
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let step = ctx.load_module(compile_ptx(SRC)?)?.load_function("step")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;
    let mut out = stream.alloc_zeros::<i32>(N)?;
    stream.synchronize()?;

    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let scratch = unsafe { result::malloc_sync(N * std::mem::size_of::<i32>()) }; // cuda_lint::uncapturable_call
    let launched = match scratch {
        Ok(tmp) => unsafe { stream.launch_builder(&step).arg(&mut out).arg(&tmp).arg(&n).launch(cfg) }.map(|_| tmp),
        Err(e) => Err(e),
    };
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    let (alloc_said, end_said) = (
        scratch.err().map_or("success".to_string(), |e| format!("{e:?}")),
        graph.as_ref().err().map_or("success".to_string(), |e| format!("{e:?}")),
    );
    if let Ok(Some(g)) = &graph {
        g.launch()?;
    }
    stream.synchronize()?;
    // Read back into pinned memory (not write-combined), after the stream's work is done.
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<i32>(N, 0) }?;
    stream.memcpy_dtoh(&out, &mut host)?;
    stream.synchronize()?;
    let back = host.as_slice()?;
    let right = back
        .iter()
        .enumerate()
        .filter(|&(i, &v)| v == 2 * (i as i32 + 1))
        .count();
    println!(
        "uncapturable_call_bug: {right} of {N} results computed; cuMemAlloc said {alloc_said}, end_capture {end_said}"
    );
    if let Ok(tmp) = launched {
        unsafe { result::free_sync(tmp) }?;
    }
    Ok(())
}
