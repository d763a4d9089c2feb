//! The fix of `graph_uses_freed_memory_bug`: the graph's last launch is waited for and the graph
//! dropped before the buffer it names; the next buffer keeps the values it was given.

use cuda_lint_examples::open_gpu;
use cudarc::driver::{CudaContext, DevicePtr, LaunchConfig, PushKernelArg, sys};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void double_it(int* x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}
extern "C" __global__ void fill(int* x, int n, int v) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = v;
}
"#;

/// 8192 ints: 32 KiB.
const N: usize = 8192;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    println!("graph_uses_freed_memory (fixed): the graph dropped before its buffer");
    let Some(_gpu) = open_gpu("graph_uses_freed_memory_fixed")? else {
        return Ok(());
    };
    let ctx = CudaContext::new(0)?;
    // As cudarc's own graph test: no events recorded inside the capture.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let double_it = module.load_function("double_it")?;
    let fill = module.load_function("fill")?;
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let n = N as i32;

    let mut work = stream.alloc_zeros::<i32>(N)?;
    let old_address = work.device_ptr(&stream).0;
    stream.begin_capture(sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_GLOBAL)?;
    unsafe { stream.launch_builder(&double_it).arg(&mut work).arg(&n).launch(cfg) }?;
    let graph = stream
        .end_capture(sys::CUgraphInstantiate_flags(0))?
        .ok_or("the capture made no graph")?;
    graph.launch()?;
    stream.synchronize()?;
    drop(graph);
    drop(work);

    // The next buffer, most likely at the freed address.
    let mut data = stream.alloc_zeros::<i32>(N)?;
    let new_address = data.device_ptr(&stream).0;
    let seven = 7i32;
    unsafe {
        stream
            .launch_builder(&fill)
            .arg(&mut data)
            .arg(&n)
            .arg(&seven)
            .launch(cfg)
    }?;
    // Read back into pinned memory (not write-combined), after the stream's work is done.
    let mut host = unsafe { ctx.alloc_pinned_with_flags::<i32>(N, 0) }?;
    stream.memcpy_dtoh(&data, &mut host)?;
    stream.synchronize()?;
    let back = host.as_slice()?;
    let intact = back.iter().filter(|&&v| v == 7).count();
    println!(
        "graph_uses_freed_memory_fixed: {intact} of {N} values of the new buffer intact (same address: {})",
        if new_address == old_address { "yes" } else { "no" }
    );
    Ok(())
}
