//! case: a particle simulation uploads and downloads exactly NUM_PARTICLES repr(C) structs, the byte counts built with size_of::<Particle>() as the allocation's.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Particle {
    pub pos: [f32; 3],
    pub mass: f32,
}

const NUM_PARTICLES: usize = 10_000;
const STATE_BYTES: usize = NUM_PARTICLES * size_of::<Particle>();

pub fn roundtrip_state() -> Result<Vec<Particle>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![Particle::default(); NUM_PARTICLES];
    let mut back = vec![Particle::default(); NUM_PARTICLES];
    let mut d_state: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_state, STATE_BYTES).result()?;
        let up = sys::cuMemcpyHtoD_v2(d_state, host.as_ptr() as *const _, STATE_BYTES);
        let down = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut _, d_state, NUM_PARTICLES * size_of::<Particle>());
        sys::cuMemFree_v2(d_state);
        up.result()?;
        down.result()?;
    }
    Ok(back)
}
