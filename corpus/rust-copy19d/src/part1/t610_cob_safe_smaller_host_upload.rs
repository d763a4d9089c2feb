//! case: an inference server uploads a prompt shorter than the KV slot with memcpy_htod into a view of the slot, and clone_dtoh's a slice exactly as long as the host vector.
//! expect: none
use cudarc::driver::{CudaContext, DriverError};

const MAX_TOKENS: usize = 2048;

pub fn upload_prompt() -> Result<Vec<u32>, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let prompt: Vec<u32> = vec![101, 2023, 2003, 1037, 3231, 102];
    let mut d_tokens = stream.alloc_zeros::<u32>(MAX_TOKENS)?;
    stream.memcpy_htod(&prompt, &mut d_tokens)?;
    let mut echo = vec![0u32; MAX_TOKENS];
    stream.memcpy_dtoh(&d_tokens, &mut echo)?;
    echo.truncate(prompt.len());
    Ok(echo)
}
