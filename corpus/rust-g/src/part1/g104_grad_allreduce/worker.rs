use std::sync::mpsc::Sender;

use cuda_lint_runtime::{Context, LaunchConfig, PinnedBuffer};

use super::{Kernels, Result};

pub fn run(
    rank: usize,
    ctx: &Context,
    kernels: &Kernels,
    shard: &[f32],
    weights: &[f32],
    tx: Sender<(usize, PinnedBuffer<f32>)>,
) -> Result<()> {
    ctx.bind_to_thread()?;
    let stream = ctx.new_stream()?;
    let n_params = weights.len();
    let n_rows = shard.len() / (n_params + 1);

    let mut x = ctx.alloc::<f32>(shard.len())?;
    let mut w = ctx.alloc::<f32>(n_params)?;
    let mut w_stage = ctx.alloc_pinned::<f32>(n_params)?;
    w_stage.copy_from_slice(weights);
    let grads = ctx.alloc_zeroed::<f32>(n_params)?;
    let mut host = ctx.alloc_pinned::<f32>(n_params)?;

    let (rows, params) = (n_rows as u32, n_params as u32);
    unsafe {
        stream.copy_htod_async(&mut x, shard)?; // EXPECT: pageable_async_copy
        stream.copy_htod_async(&mut w, &w_stage)?;
        stream.launch(
            &kernels.backward,
            LaunchConfig::for_num_elems(params),
            &[&x, &w, &grads, &rows, &params],
        )?;
        stream.copy_dtoh_async(&mut host, &grads)?;
    }

    let local_norm = host.iter().map(|g| g * g).sum::<f32>().sqrt(); // EXPECT: missing_sync
    stream.synchronize()?;
    if !local_norm.is_finite() {
        return Err(format!("rank {rank}: non-finite gradient norm").into());
    }
    tx.send((rank, host)).map_err(|_| "reducer gone")?;
    Ok(())
}
