use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction};
use cudarc::nvrtc::compile_ptx;

// `ring` and `mirror` are the two views of the same bytes: mirror[i] == ring[i % size].
const DRAIN_SRC: &str = r#"
extern "C" __global__ void drain_records(unsigned char* ring, const unsigned char* mirror,
                                         unsigned head, unsigned len, unsigned size, unsigned seq,
                                         unsigned char* out) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 4 && blockIdx.x == 0) {
        // stamp the sequence number into the record header, through the primary view
        ring[(head + threadIdx.x) % size] = (unsigned char)(seq >> (8 * threadIdx.x));
    }
    __syncthreads();
    // contiguous read across the wrap point, through the mirror view
    if (i < len) out[i] = mirror[head + i];
}
"#;

pub fn load_drain(ctx: &Arc<CudaContext>) -> Result<CudaFunction, Box<dyn std::error::Error>> {
    let ptx = compile_ptx(DRAIN_SRC)?;
    Ok(ctx.load_module(ptx)?.load_function("drain_records")?)
}
