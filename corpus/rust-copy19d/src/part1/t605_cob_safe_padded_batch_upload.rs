//! case: an inference server uploads a batch padded to MAX_SEQ tokens with memcpy_htod into a CudaSlice alloc_zeros'd for SEQ tokens.
//! expect: copy_out_of_bounds=1
use cudarc::driver::{CudaContext, DriverError};

const HIDDEN: usize = 768;
const SEQ: usize = 128;
const MAX_SEQ: usize = 512;

pub fn upload_embeddings() -> Result<Vec<f32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let padded = vec![0.0f32; MAX_SEQ * HIDDEN];
    let mut d_embed = stream.alloc_zeros::<f32>(SEQ * HIDDEN)?;
    stream.memcpy_htod(&padded, &mut d_embed)?; // EXPECT: copy_out_of_bounds
    stream.clone_dtoh(&d_embed)
}
