//! The fix of `uncapturable_call_bug`: the scratch buffer is allocated before the capture
//! begins; the captured time step is launched and computes every result.

use std::sync::Arc;

use cuda_lint_examples::open_gpu;
use cudarc::driver::{CudaContext, CudaStream, LaunchConfig, PushKernelArg, result, sys};
use cudarc::nvrtc::compile_ptx;

/// The scratch buffer, freed once its stream's work is done, on every path out of `main`.
struct Scratch {
    ptr: sys::CUdeviceptr,
    stream: Arc<CudaStream>,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        // SAFETY: allocated by `malloc_sync`, freed once, after the work using it.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

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
    println!("uncapturable_call (fixed): cuMemAlloc before the capture");
    let Some(_gpu) = open_gpu("uncapturable_call_fixed")? else {
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

    let scratch = Scratch {
        ptr: unsafe { result::malloc_sync(N * std::mem::size_of::<i32>()) }?,
        stream: stream.clone(),
    };
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    let tmp = scratch.ptr;
    unsafe { stream.launch_builder(&step).arg(&mut out).arg(&tmp).arg(&n).launch(cfg) }?;
    let graph = stream.end_capture(sys::CUgraphInstantiate_flags(0));
    let (alloc_said, end_said) = (
        "success".to_string(),
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
        "uncapturable_call_fixed: {right} of {N} results computed; cuMemAlloc said {alloc_said}, end_capture {end_said}"
    );
    drop(scratch);
    Ok(())
}
