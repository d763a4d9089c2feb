//! Streaming high-pass filter, the counterpart of r815: the helper returns the
//! graph together with the pinned taps buffer its captured copy reads, and the
//! caller keeps both until every launch was waited for.

mod filter_graph;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

use filter_graph::{highpass_taps, FilterGraph};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const FIR_KERNEL: &str = r#"
extern "C" __global__ void fir(const float *x, const float *taps, float *y, int n, int ntaps) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (int k = 0; k < ntaps; ++k) {
        int j = i - k;
        if (j >= 0) acc += taps[k] * x[j];
    }
    y[i] = acc;
}
"#;

pub fn highpass_blocks(blocks: &[Vec<f32>], block_len: usize, ntaps: usize, cutoff: f32) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(FIR_KERNEL)?)?;
    let fir = module.load_function("fir")?;

    let ntaps = ntaps.max(3) | 1;
    let coefficients = highpass_taps(ntaps, cutoff);
    let mut d_taps = stream.alloc_zeros::<f32>(ntaps)?;
    let mut d_signal = stream.alloc_zeros::<f32>(block_len)?;
    let mut d_filtered = stream.alloc_zeros::<f32>(block_len)?;
    let mut h_block = unsafe { ctx.alloc_pinned::<f32>(block_len)? };
    let mut h_filtered = unsafe { ctx.alloc_pinned_with_flags::<f32>(block_len, 0)? };

    let filter = FilterGraph::capture(
        &ctx, &stream, &fir, &coefficients, &mut d_taps, &d_signal, &mut d_filtered, block_len,
    )?;

    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let staged = h_block.as_mut_slice()?;
        staged.fill(0.0);
        let k = block.len().min(block_len);
        staged[..k].copy_from_slice(&block[..k]);
        stream.memcpy_htod(&h_block, &mut d_signal)?;
        filter.graph.launch()?;
        stream.memcpy_dtoh(&d_filtered, &mut h_filtered)?;
        stream.synchronize()?;
        out.push(h_filtered.as_slice()?[..k].to_vec());
    }
    drop(filter);
    Ok(out)
}
