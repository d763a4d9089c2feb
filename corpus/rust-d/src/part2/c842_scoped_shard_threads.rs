//! case: a sharded normalizer (cudarc) runs one scoped thread per shard, each with its own stream and its own pinned input/output (flags 0); every thread synchronizes its stream before returning, and the main thread reads the outputs after the scope has joined all threads
//! expect: none

use std::sync::Arc;
use std::thread;

use cudarc::driver::{CudaContext, CudaFunction, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const L2NORM_SRC: &str = r#"
extern "C" __global__ void l2_normalize_rows(const float* x, float* y, unsigned int rows, unsigned int dim) {
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned int j = 0; j < dim; ++j) s += x[(size_t)r * dim + j] * x[(size_t)r * dim + j];
    float inv = rsqrtf(fmaxf(s, 1e-12f));
    for (unsigned int j = 0; j < dim; ++j) y[(size_t)r * dim + j] = x[(size_t)r * dim + j] * inv;
}
"#;

struct Shard {
    input: PinnedHostSlice<f32>,
    output: PinnedHostSlice<f32>,
    rows: u32,
}

fn run_shard(ctx: &Arc<CudaContext>, f: &CudaFunction, shard: &mut Shard, dim: u32) -> Result<(), DriverError> {
    let stream = ctx.new_stream()?;
    let x = stream.clone_htod(&shard.input)?;
    let mut y = stream.alloc_zeros::<f32>(x.len())?;
    let mut launch = stream.launch_builder(f);
    launch.arg(&x).arg(&mut y).arg(&shard.rows).arg(&dim);
    unsafe { launch.launch(LaunchConfig::for_num_elems(shard.rows)) }?;
    stream.memcpy_dtoh(&y, &mut shard.output)?;
    stream.synchronize()
}

pub fn normalize(ctx: &Arc<CudaContext>, rows: &[Vec<f32>], dim: usize, shards: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let f = ctx.load_module(compile_ptx(L2NORM_SRC)?)?.load_function("l2_normalize_rows")?;
    let per = rows.len().div_ceil(shards);
    let mut work: Vec<Shard> = rows
        .chunks(per)
        .map(|chunk| -> Result<Shard, DriverError> {
            let mut input = unsafe { ctx.alloc_pinned_with_flags::<f32>(chunk.len() * dim, 0)? };
            input.as_mut_slice()?.chunks_exact_mut(dim).zip(chunk).for_each(|(dst, src)| dst.copy_from_slice(src));
            let output = unsafe { ctx.alloc_pinned_with_flags::<f32>(chunk.len() * dim, 0)? };
            Ok(Shard { input, output, rows: chunk.len() as u32 })
        })
        .collect::<Result<_, _>>()?;

    let results: Vec<Result<(), DriverError>> = thread::scope(|s| {
        let handles: Vec<_> = work.iter_mut().map(|shard| s.spawn(|| run_shard(ctx, &f, shard, dim as u32))).collect();
        handles.into_iter().map(|h| h.join().expect("shard thread panicked")).collect()
    });
    results.into_iter().collect::<Result<(), _>>()?;

    let mut out = Vec::with_capacity(rows.len() * dim);
    for shard in &work {
        out.extend_from_slice(shard.output.as_slice()?);
    }
    Ok(out)
}
