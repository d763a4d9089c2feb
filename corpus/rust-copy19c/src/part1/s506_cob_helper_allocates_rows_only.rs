//! case: a helper the crate defines allocates ROWS floats (the column count forgotten); the caller copies ROWS*COLS floats into it
//! expect: copy_out_of_bounds=1

use cudarc::runtime::sys::{self, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const ROWS: usize = 128;
const COLS: usize = 16;

fn device_alloc_f32(count: usize) -> Result<*mut c_void, sys::cudaError_t> {
    let mut p: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { sys::cudaMalloc(&mut p, count * size_of::<f32>()) };
    if rc != sys::cudaError_t::cudaSuccess {
        return Err(rc);
    }
    Ok(p)
}

pub fn load_table() -> Result<f32, sys::cudaError_t> {
    let table: Vec<f32> = (0..ROWS * COLS).map(|i| (i % COLS) as f32).collect();
    let d_table = device_alloc_f32(ROWS)?;
    unsafe {
        let rc = sys::cudaMemcpy(d_table, table.as_ptr() as *const c_void, ROWS * COLS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice); // EXPECT: copy_out_of_bounds
        if rc != sys::cudaError_t::cudaSuccess {
            sys::cudaFree(d_table);
            return Err(rc);
        }
        let mut first = 0.0f32;
        sys::cudaMemcpy(&mut first as *mut f32 as *mut c_void, d_table, size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_table);
        Ok(first)
    }
}
