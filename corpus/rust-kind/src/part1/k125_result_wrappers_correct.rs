//! case: an N-body step uses cudarc's driver::result wrappers (memcpy_htod_sync, memcpy_htod_async, memcpy_dtoh_sync) with cuMemAlloc_v2 device addresses and host Vec slices, all in the right direction.
//! expect: none
use cudarc::driver::{result, sys, DriverError};

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Body {
    pub pos: [f32; 3],
    pub mass: f32,
}

pub struct NBody {
    pub d_bodies: sys::CUdeviceptr,
    pub d_accel: sys::CUdeviceptr,
    pub n: usize,
}

pub fn init_nbody(bodies: &Vec<Body>) -> Result<NBody, DriverError> {
    let n = bodies.len();
    let mut d_bodies: sys::CUdeviceptr = 0;
    let mut d_accel: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_bodies, n * std::mem::size_of::<Body>());
        sys::cuMemAlloc_v2(&mut d_accel, n * 12);
        result::memcpy_htod_sync(d_bodies, bodies.as_slice())?;
    }
    Ok(NBody { d_bodies, d_accel, n })
}

pub fn step(sim: &NBody, bodies: &mut Vec<Body>, stream: sys::CUstream) -> Result<Vec<[f32; 3]>, DriverError> {
    let mut accel = vec![[0.0f32; 3]; sim.n];
    unsafe {
        result::memcpy_htod_async(sim.d_bodies, &bodies[..], stream)?;
        // gravity kernel on stream: d_bodies -> d_accel
        result::stream::synchronize(stream)?;
        result::memcpy_dtoh_sync(&mut accel, sim.d_accel)?;
    }
    for (b, a) in bodies.iter_mut().zip(&accel) {
        for k in 0..3 {
            b.pos[k] += 0.5 * a[k] * 1e-3;
        }
    }
    Ok(accel)
}
