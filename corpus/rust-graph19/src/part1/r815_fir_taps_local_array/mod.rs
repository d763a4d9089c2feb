//! Streaming low-pass filter over blocks of an audio signal. `capture::capture_fir`
//! captures the taps upload from its own local array and returns the graph; the
//! caller replays it once per block, after the array is gone (PaddlePaddle
//! #78568's shape: a captured copy whose host source was a local).

mod capture;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

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

pub fn lowpass_blocks(blocks: &[Vec<f32>], block_len: usize, cutoff: f32) -> Result<Vec<Vec<f32>>> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(FIR_KERNEL)?)?;
    let fir = module.load_function("fir")?;

    let mut d_taps = stream.alloc_zeros::<f32>(capture::TAPS)?;
    let mut d_signal = stream.alloc_zeros::<f32>(block_len)?;
    let mut d_filtered = stream.alloc_zeros::<f32>(block_len)?;
    let mut h_block = unsafe { ctx.alloc_pinned::<f32>(block_len)? };
    let mut h_filtered = unsafe { ctx.alloc_pinned_with_flags::<f32>(block_len, 0)? };

    let graph = capture::capture_fir(&stream, &fir, &mut d_taps, &d_signal, &mut d_filtered, block_len, cutoff)?;

    let mut out = Vec::with_capacity(blocks.len());
    for block in blocks {
        let staged = h_block.as_mut_slice()?;
        staged.fill(0.0);
        let k = block.len().min(block_len);
        staged[..k].copy_from_slice(&block[..k]);
        stream.memcpy_htod(&h_block, &mut d_signal)?;
        graph.launch()?; // EXPECT: graph_uses_freed_memory
        stream.memcpy_dtoh(&d_filtered, &mut h_filtered)?;
        stream.synchronize()?;
        out.push(h_filtered.as_slice()?[..k].to_vec());
    }
    Ok(out)
}
