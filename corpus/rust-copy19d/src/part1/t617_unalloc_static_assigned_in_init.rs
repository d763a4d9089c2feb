//! case: a tone-mapping module keeps its curve in a static device pointer that `init_curve()` allocates and fills; the entry point calls init_curve() before its copies.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

const CURVE_POINTS: usize = 1024;
const CURVE_BYTES: usize = CURVE_POINTS * size_of::<f32>();

static mut D_CURVE: CUdeviceptr = 0;

fn init_curve() -> Result<(), DriverError> {
    let mut d: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, CURVE_BYTES).result()?;
        sys::cuMemsetD32_v2(d, 0, CURVE_POINTS);
        D_CURVE = d;
    }
    Ok(())
}

fn shutdown_curve() {
    unsafe {
        let d = D_CURVE;
        sys::cuMemFree_v2(d);
        D_CURVE = 0;
    }
}

pub fn tone_map_curve(points: &[f32; CURVE_POINTS]) -> Result<Vec<f32>, DriverError> {
    let _ctx = CudaContext::new(0)?;
    init_curve()?;
    let mut back = vec![0.0f32; CURVE_POINTS];
    let (up, down) = unsafe {
        let d = D_CURVE;
        let up = sys::cuMemcpyHtoD_v2(d, points.as_ptr() as *const _, CURVE_BYTES);
        let down = sys::cuMemcpyDtoH_v2(back.as_mut_ptr() as *mut _, d, CURVE_BYTES);
        (up, down)
    };
    shutdown_curve();
    up.result()?;
    down.result()?;
    Ok(back)
}
