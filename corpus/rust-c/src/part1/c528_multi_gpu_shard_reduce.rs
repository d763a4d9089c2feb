//! case: a data-parallel scorer splits one portable pinned buffer into per-GPU chunks (plain `&mut [f32]`), each scoped thread copies its device's scores into its chunk with `memcpy_dtoh` and sums the chunk right away; cudarc records no event on a plain slice and nothing waits for the copy
//! expect: missing_sync=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SCORE_SRC: &str = r#"
extern "C" __global__ void score(const float* feats, float* scores, int n, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int k = 0; k < dim; ++k) s += feats[i * dim + k] * (k & 1 ? -0.5f : 0.5f);
    scores[i] = s;
}
"#;

struct Shard {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
}

pub fn score_all(features: &[f32], dim: usize) -> Result<f32, Box<dyn std::error::Error + Send + Sync>> {
    let devices = CudaContext::device_count()? as usize;
    let shards = (0..devices)
        .map(|i| {
            let ctx = CudaContext::new(i)?;
            let stream = ctx.new_stream()?;
            Ok(Shard { ctx, stream })
        })
        .collect::<Result<Vec<_>, cudarc::driver::DriverError>>()?;
    let rows_total = features.len() / dim;
    let per_gpu = rows_total.div_ceil(devices);
    // PORTABLE: pinned for every device's context, not just device 0's.
    let portable = sys::CU_MEMHOSTALLOC_PORTABLE;
    let mut feats = unsafe { shards[0].ctx.alloc_pinned_with_flags::<f32>(features.len(), portable)? };
    feats.as_mut_slice()?.copy_from_slice(features);
    let mut scores = unsafe { shards[0].ctx.alloc_pinned_with_flags::<f32>(rows_total, portable)? };
    let host_feats = feats.as_slice()?;
    let host_scores = scores.as_mut_slice()?;

    let partials: Vec<f32> = std::thread::scope(|s| {
        let handles: Vec<_> = shards
            .iter()
            .zip(host_feats.chunks(per_gpu * dim).zip(host_scores.chunks_mut(per_gpu)))
            .map(|(shard, (rows, out))| {
                s.spawn(move || -> Result<f32, cudarc::driver::DriverError> {
                    shard.ctx.bind_to_thread()?;
                    let ptx = compile_ptx(SCORE_SRC).expect("kernel compiles");
                    let f = shard.ctx.load_module(ptx)?.load_function("score")?;
                    let d_feats = shard.stream.clone_htod(rows)?;
                    let mut d_scores = shard.stream.alloc_zeros::<f32>(out.len())?;
                    let (n, d) = (out.len() as i32, dim as i32);
                    unsafe {
                        shard
                            .stream
                            .launch_builder(&f)
                            .arg(&d_feats)
                            .arg(&mut d_scores)
                            .arg(&n)
                            .arg(&d)
                            .launch(LaunchConfig::for_num_elems(n as u32))?;
                    }
                    shard.stream.memcpy_dtoh(&d_scores, out)?;
                    Ok(out.iter().sum()) // EXPECT: missing_sync
                })
            })
            .collect();
        handles.into_iter().map(|h| h.join().expect("shard thread").unwrap_or(0.0)).collect()
    });
    // Let every device finish before the pinned buffers are released.
    for shard in &shards {
        shard.stream.synchronize()?;
    }
    Ok(partials.iter().sum())
}
