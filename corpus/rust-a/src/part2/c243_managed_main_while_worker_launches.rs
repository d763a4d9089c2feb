//! case: a worker thread keeps launching a solver kernel on its own stream while the main thread updates a runtime-layer ManagedBuffer of UI state; the join comes later
//! expect: managed_concurrent_access=1
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::thread;

use cuda_lint_runtime::{Context, LaunchConfig, Result};

const SRC: &str = r#"
extern "C" __global__ void relax(float* phi, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i + 1 < n) phi[i] = 0.5f * (phi[i - 1] + phi[i + 1]);
}
"#;

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stop = Arc::new(AtomicBool::new(false));
    let solver = {
        let (ctx, stop) = (ctx.clone(), Arc::clone(&stop));
        thread::spawn(move || -> Result<u32> {
            let stream = ctx.new_stream()?;
            let k = ctx.load_cuda(SRC)?.function("relax")?;
            let n = 1u32 << 20;
            let phi = ctx.alloc_zeroed::<f32>(n as usize)?;
            let mut sweeps = 0;
            while !stop.load(Ordering::Relaxed) && sweeps < 10_000 {
                unsafe { stream.launch(&k, LaunchConfig::for_num_elems(n), &[&phi, &n])? };
                sweeps += 1;
            }
            stream.synchronize()?;
            Ok(sweeps)
        })
    };

    let mut ui = ctx.alloc_managed::<f32>(64)?;
    for frame in 0..60 {
        ui[frame % 64] = frame as f32 / 60.0; // EXPECT: managed_concurrent_access
    }
    stop.store(true, Ordering::Relaxed);
    let sweeps = solver.join().expect("solver thread panicked")?;
    println!("{sweeps} sweeps, ui[0] = {}", ui[0]);
    Ok(())
}
