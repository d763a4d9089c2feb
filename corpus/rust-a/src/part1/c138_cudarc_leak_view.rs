//! case: cudarc weights uploaded with clone_htod from a Vec, then leak()ed into a raw CUdeviceptr for a C library; a debug path sums them through slice::from_raw_parts on that device address
//! expect: pageable_async_copy=1, host_deref_device_ptr=1
use std::error::Error;

use cudarc::driver::CudaContext;
use cudarc::driver::sys::CUdeviceptr;

pub struct Weights {
    pub ptr: CUdeviceptr,
    pub len: usize,
}

pub fn load_weights(values: Vec<f32>, debug: bool) -> Result<Weights, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.clone_htod(&values)?; // EXPECT: pageable_async_copy
    stream.synchronize()?;
    let len = dev.len();
    let raw = dev.leak();
    if debug {
        let total: f32 = unsafe { std::slice::from_raw_parts(raw as *const f32, len) }.iter().sum(); // EXPECT: host_deref_device_ptr
        eprintln!("weights loaded, sum = {total}");
    }
    Ok(Weights { ptr: raw, len })
}
