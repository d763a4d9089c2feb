//! case: near miss: cudarc memcpy_dtoh of a 1000-element slice into a host Vec of 1024 (the copy is the source's length), and an htod of a shorter Vec into a longer slice
//! expect: none

use cudarc::driver::CudaContext;

const PADDED: usize = 1024;
const USED: usize = 1000;

pub fn padded_roundtrip() -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let input: Vec<f32> = (0..USED).map(|i| i as f32).collect();
    let d_used = stream.clone_htod(&input)?;
    let mut padded = vec![0.0f32; PADDED];
    stream.memcpy_dtoh(&d_used, &mut padded)?;
    let mut d_padded = stream.alloc_zeros::<f32>(PADDED)?;
    stream.memcpy_htod(&input, &mut d_padded)?;
    let again = stream.clone_dtoh(&d_padded)?;
    Ok(padded.into_iter().zip(again).map(|(a, b)| a + b).collect())
}
