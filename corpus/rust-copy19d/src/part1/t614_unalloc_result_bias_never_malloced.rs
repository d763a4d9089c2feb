//! case: a layer loader malloc_sync's the weights, but the bias pointer is a CUdeviceptr of 0 that no allocation is ever given, and memcpy_htod_sync uploads into it.
//! expect: unallocated_pointer=1
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaContext;
use std::mem::size_of;

const IN: usize = 512;
const OUT: usize = 256;

pub struct DenseLayer {
    pub d_weights: CUdeviceptr,
    pub d_bias: CUdeviceptr,
}

pub fn load_dense(weights: &[f32], bias: &[f32]) -> Result<(), DriverError> {
    let _ctx = CudaContext::new(0)?;
    let w = &weights[..IN * OUT];
    let b = &bias[..OUT];
    unsafe {
        let d_weights = result::malloc_sync(IN * OUT * size_of::<f32>())?;
        let d_bias: CUdeviceptr = 0;
        let r1 = result::memcpy_htod_sync(d_weights, w);
        let r2 = result::memcpy_htod_sync(d_bias, b); // EXPECT: unallocated_pointer
        let mut check = vec![0.0f32; OUT];
        let r3 = result::memcpy_dtoh_sync(&mut check, d_weights);
        result::free_sync(d_weights)?;
        r1?;
        r2?;
        r3?;
    }
    Ok(())
}
