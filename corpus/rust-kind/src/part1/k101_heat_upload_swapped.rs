//! case: a 1D heat-diffusion setup uploads the initial temperature Vec into a cudaMalloc buffer, but passes the host Vec as destination and the device buffer as source under cudaMemcpyHostToDevice (swapped).
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct HeatRod {
    pub cells: usize,
    pub alpha: f32,
}

pub fn initial_profile(cells: usize) -> Vec<f32> {
    (0..cells)
        .map(|i| {
            let x = i as f32 / cells as f32;
            if (0.4..0.6).contains(&x) { 100.0 } else { 20.0 }
        })
        .collect()
}

pub fn upload_rod(rod: &HeatRod) -> *mut c_void {
    let mut temps = initial_profile(rod.cells);
    let bytes = temps.len() * std::mem::size_of::<f32>();
    let mut d_temps: *mut c_void = std::ptr::null_mut();
    unsafe {
        let rc = sys::cudaMalloc(&mut d_temps, bytes);
        assert_eq!(rc, sys::cudaError_t::cudaSuccess);
        let rc = sys::cudaMemcpy( // EXPECT: memcpy_kind_mismatch
            temps.as_mut_ptr() as *mut c_void,
            d_temps as *const c_void,
            bytes,
            sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
        );
        assert_eq!(rc, sys::cudaError_t::cudaSuccess);
    }
    d_temps
}

pub fn stable_dt(rod: &HeatRod, dx: f32) -> f32 {
    0.45 * dx * dx / rod.alpha
}
