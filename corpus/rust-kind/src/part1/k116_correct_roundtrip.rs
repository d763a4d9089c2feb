//! case: a Jacobi solver uploads its grid Vec and downloads the result with cudaMemcpy, both with the correct kinds and argument order.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct Grid2D {
    pub nx: usize,
    pub ny: usize,
    pub values: Vec<f32>,
}

impl Grid2D {
    pub fn with_hot_edge(nx: usize, ny: usize) -> Self {
        let mut values = vec![0.0; nx * ny];
        for x in 0..nx {
            values[x] = 1.0;
        }
        Grid2D { nx, ny, values }
    }
}

pub fn jacobi_gpu(grid: &mut Grid2D, iters: usize) {
    let bytes = grid.values.len() * 4;
    let mut d_a: *mut c_void = std::ptr::null_mut();
    let mut d_b: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut d_a, bytes);
        sys::cudaMalloc(&mut d_b, bytes);
        sys::cudaMemcpy(d_a, grid.values.as_ptr() as *const c_void, bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(d_b, grid.values.as_ptr() as *const c_void, bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
    }
    for _ in 0..iters {
        // jacobi kernel d_a -> d_b
        std::mem::swap(&mut d_a, &mut d_b);
    }
    unsafe {
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy(
            grid.values.as_mut_ptr() as *mut c_void,
            d_a,
            bytes,
            sys::cudaMemcpyKind::cudaMemcpyDeviceToHost,
        );
        sys::cudaFree(d_a);
        sys::cudaFree(d_b);
    }
}

pub fn residual(g: &Grid2D) -> f32 {
    let mut r = 0.0f32;
    for y in 1..g.ny - 1 {
        for x in 1..g.nx - 1 {
            let i = y * g.nx + x;
            let lap = g.values[i - 1] + g.values[i + 1] + g.values[i - g.nx] + g.values[i + g.nx] - 4.0 * g.values[i];
            r = r.max(lap.abs());
        }
    }
    r
}
