//! case: a GEMM benchmark keeps its directions in consts (TO_DEVICE, TO_HOST) and a struct with misleadingly named fields `src`/`dst`, and every copy uses the const that matches its Vec/cudaMalloc pointers.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

const TO_DEVICE: sys::cudaMemcpyKind = sys::cudaMemcpyKind::cudaMemcpyHostToDevice;
const TO_HOST: sys::cudaMemcpyKind = sys::cudaMemcpyKind::cudaMemcpyDeviceToHost;

pub struct GemmBuffers {
    pub src: *mut c_void, // device A|B, named after the data flow of the kernel
    pub dst: *mut c_void, // device C
    pub m: usize,
    pub n: usize,
    pub k: usize,
}

pub fn setup(m: usize, n: usize, k: usize, a: &[f32], b: &[f32]) -> GemmBuffers {
    let mut bufs = GemmBuffers { src: std::ptr::null_mut(), dst: std::ptr::null_mut(), m, n, k };
    unsafe {
        sys::cudaMalloc(&mut bufs.src, (m * k + k * n) * 4);
        sys::cudaMalloc(&mut bufs.dst, m * n * 4);
        sys::cudaMemcpy(bufs.src, a.as_ptr() as *const c_void, m * k * 4, TO_DEVICE);
        let b_dst = (bufs.src as *mut f32).add(m * k) as *mut c_void;
        sys::cudaMemcpy(b_dst, b.as_ptr() as *const c_void, k * n * 4, TO_DEVICE);
    }
    bufs
}

pub fn fetch_c(bufs: &GemmBuffers) -> Vec<f32> {
    let mut c = vec![0.0f32; bufs.m * bufs.n];
    unsafe {
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy(c.as_mut_ptr() as *mut c_void, bufs.dst, c.len() * 4, TO_HOST);
    }
    c
}

pub fn gflops(m: usize, n: usize, k: usize, secs: f64) -> f64 {
    2.0 * m as f64 * n as f64 * k as f64 / secs / 1e9
}
