//! case: Monte Carlo workers on their own threads and streams each synchronize before returning; the main thread reads the shared unified tally only after joining them all
//! expect: none
use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void walk(float* pos, unsigned n, unsigned seed) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned s = seed ^ (i * 2654435761u);
    for (int k = 0; k < 64; ++k) { s = s * 1664525u + 1013904223u; pos[i] += (s & 1u) ? 1.0f : -1.0f; }
}
"#;

fn worker(ctx: Arc<CudaContext>, f: CudaFunction, seed: u32) -> Result<u64, DriverError> {
    let stream = ctx.new_stream()?;
    let mut pos: CudaSlice<f32> = stream.alloc_zeros(1 << 18)?;
    let n = pos.len() as u32;
    unsafe { stream.launch_builder(&f).arg(&mut pos).arg(&n).arg(&seed).launch(LaunchConfig::for_num_elems(n))? };
    stream.synchronize()?;
    Ok(seed as u64 * n as u64)
}

pub fn simulate(ctx: Arc<CudaContext>, workers: u32) -> Result<Vec<u64>, Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("walk")?;
    let mut tally = unsafe { ctx.alloc_unified::<u64>(workers as usize, true)? };
    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let (ctx, f) = (ctx.clone(), f.clone());
            thread::spawn(move || worker(ctx, f, w + 1))
        })
        .collect();
    let results = handles
        .into_iter()
        .map(|h| h.join().expect("worker panicked"))
        .collect::<Result<Vec<u64>, DriverError>>()?;
    // every worker's stream is idle now
    tally.as_mut_slice()?.copy_from_slice(&results);
    Ok(tally.as_slice()?.to_vec())
}
