//! case: thread::scope workers each launch and synchronize their own stream; the main thread touches the runtime-layer ManagedBuffer only after the scope has joined them
//! expect: none
use std::thread;

use cuda_lint_runtime::{Context, LaunchConfig, Result};

const SRC: &str = r#"
extern "C" __global__ void square(float* v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}
"#;

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let kernel = ctx.load_cuda(SRC)?.function("square")?;
    let mut summary = ctx.alloc_managed::<u32>(4)?;

    let results: Vec<Result<u32>> = thread::scope(|s| {
        let handles: Vec<_> = (0..4u32)
            .map(|w| {
                let (ctx, kernel) = (&ctx, &kernel);
                s.spawn(move || -> Result<u32> {
                    let stream = ctx.new_stream()?;
                    let n = 1u32 << (14 + w);
                    let v = ctx.alloc_zeroed::<f32>(n as usize)?;
                    unsafe { stream.launch(kernel, LaunchConfig::for_num_elems(n), &[&v, &n])? };
                    stream.synchronize()?;
                    Ok(n)
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("worker panicked")).collect()
    });

    for (slot, r) in summary.iter_mut().zip(results) {
        *slot = r?;
    }
    println!("processed {} elements", summary.iter().sum::<u32>());
    Ok(())
}
