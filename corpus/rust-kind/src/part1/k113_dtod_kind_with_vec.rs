//! case: a finite-volume solver copies its boundary-condition Vec into a device ghost-cell buffer using cudaMemcpyDeviceToDevice (pasted from the ping-pong swap above it), though the source is a host Vec.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct FvSolver {
    pub n: usize,
    pub d_u: *mut c_void,
    pub d_u_next: *mut c_void,
    pub d_ghost: *mut c_void,
}

pub fn new_solver(n: usize) -> FvSolver {
    let mut s = FvSolver { n, d_u: std::ptr::null_mut(), d_u_next: std::ptr::null_mut(), d_ghost: std::ptr::null_mut() };
    unsafe {
        sys::cudaMalloc(&mut s.d_u, n * 8);
        sys::cudaMalloc(&mut s.d_u_next, n * 8);
        sys::cudaMalloc(&mut s.d_ghost, 4 * 8);
    }
    s
}

pub fn step(s: &mut FvSolver, t: f64) {
    let inflow = (t * 3.0).sin().max(0.0);
    let boundary: Vec<f64> = vec![inflow, inflow, 0.0, 0.0];
    unsafe {
        // flux kernel wrote d_u_next; copy it back into d_u
        sys::cudaMemcpy(s.d_u, s.d_u_next, s.n * 8, sys::cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        sys::cudaMemcpy( // EXPECT: memcpy_kind_mismatch
            s.d_ghost,
            boundary.as_ptr() as *const c_void,
            boundary.len() * 8,
            sys::cudaMemcpyKind::cudaMemcpyDeviceToDevice,
        );
    }
}

pub fn run(n: usize, steps: usize, dt: f64) -> FvSolver {
    let mut s = new_solver(n);
    for k in 0..steps {
        step(&mut s, k as f64 * dt);
    }
    s
}
