//! case: an input Vec is split with .chunks() and each chunk uploaded with copy_htod_async into its own device buffer inside try_for_each; the chunks are pageable memory
//! expect: pageable_async_copy=1
use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Result};

const SUM_SRC: &str = r#"
extern "C" __global__ void partial_sum(const float* x, float* out, unsigned n) {
    __shared__ float s[256];
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    s[threadIdx.x] = i < n ? x[i] : 0.0f;
    __syncthreads();
    if (threadIdx.x == 0) { float t = 0; for (int k = 0; k < 256; ++k) t += s[k]; atomicAdd(out, t); }
}
"#;

pub fn sum_in_chunks(ctx: &Context, input: &Vec<f32>, chunk: usize) -> Result<f32> {
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(SUM_SRC)?.function("partial_sum")?;
    let mut parts: Vec<DeviceBuffer<f32>> = input.chunks(chunk).map(|c| ctx.alloc::<f32>(c.len())).collect::<Result<_>>()?;
    let mut total = ctx.alloc_zeroed::<f32>(1)?;

    input
        .chunks(chunk)
        .zip(parts.iter_mut())
        .try_for_each(|(c, d)| unsafe { stream.copy_htod_async(d, c) })?; // EXPECT: pageable_async_copy

    for d in &parts {
        let n = d.len() as u32;
        // SAFETY: partial_sum(const float*, float*, unsigned).
        unsafe { stream.launch(&kernel, LaunchConfig::for_num_elems(n), &[d, &total, &n])? };
    }
    let mut out = ctx.alloc_pinned::<f32>(1)?;
    // SAFETY: read after the synchronize.
    unsafe { stream.copy_dtoh_async(&mut out, &total)? };
    stream.synchronize()?;
    let _ = &mut total;
    Ok(out[0])
}
