//! case: cudarc memcpy_htod of a host Vec twice as long as the destination CudaSlice allocated with alloc_zeros
//! expect: copy_out_of_bounds=1

use cudarc::driver::CudaContext;

const TILE: usize = 1024;

pub fn refresh_tile() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut d_tile = stream.alloc_zeros::<f32>(TILE)?;
    // the host side keeps a double-buffered tile (front and back halves)
    let staged = vec![1.5f32; 2 * TILE];
    stream.memcpy_htod(&staged, &mut d_tile)?; // EXPECT: copy_out_of_bounds
    let back = stream.clone_dtoh(&d_tile)?;
    Ok(back)
}
