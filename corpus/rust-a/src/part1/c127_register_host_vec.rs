//! case: a Vec that the program already has is page-locked in place with register_host before the async upload and readback; the guard is dropped after the stream is synchronized
//! expect: none
use cuda_lint_runtime::{Context, LaunchConfig, Result};

const NEG_SRC: &str = r#"
extern "C" __global__ void negate(float* x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = -x[i];
}
"#;

pub fn negate_in_place(ctx: &Context, data: &mut Vec<f32>) -> Result<()> {
    let module = ctx.load_cuda(NEG_SRC)?;
    let negate = module.function("negate")?;
    let stream = ctx.new_stream()?;
    let n = data.len() as u32;
    let mut dev = ctx.alloc::<f32>(data.len())?;
    {
        let mut locked = ctx.register_host(data.as_mut_slice())?;
        // SAFETY: `locked` is page-locked and not touched until the synchronize below.
        unsafe { stream.copy_htod_async(&mut dev, &locked)? };
        // SAFETY: negate(float*, unsigned) over n floats.
        unsafe { stream.launch(&negate, LaunchConfig::for_num_elems(n), &[&dev, &n])? };
        // SAFETY: as above.
        unsafe { stream.copy_dtoh_async(&mut locked, &dev)? };
        stream.synchronize()?;
    } // unregistered here, after the synchronize
    data.push(0.0);
    Ok(())
}
