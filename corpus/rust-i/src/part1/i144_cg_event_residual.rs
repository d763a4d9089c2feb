//! case: conjugate-gradient Poisson solver over raw cudart FFI: each iteration copies the residual norm into cudaMallocHost memory, records an event, and `wait_residual` (another function) calls cudaEventSynchronize before the convergence test reads it (near-miss for missing_sync: event wait in a helper)
//! expect: none

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type Stream = *mut c_void;
type Event = *mut c_void;

#[repr(C)]
#[derive(Clone, Copy)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

const D2H: c_int = 2;
const EVENT_DISABLE_TIMING: c_uint = 2;

unsafe extern "C" {
    fn cudaMallocHost(p: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFreeHost(p: *mut c_void) -> c_int;
    fn cudaEventCreateWithFlags(e: *mut Event, flags: c_uint) -> c_int;
    fn cudaEventDestroy(e: Event) -> c_int;
    fn cudaEventRecord(e: Event, s: Stream) -> c_int;
    fn cudaEventSynchronize(e: Event) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, n: usize, kind: c_int, s: Stream) -> c_int;
    fn cudaLaunchKernel(f: *const c_void, g: Dim3, b: Dim3, args: *mut *mut c_void, smem: usize, s: Stream) -> c_int;
    static cg_iteration: u8;
}

pub struct CgSolver {
    stream: Stream,
    residual_ready: Event,
    h_rnorm: *mut f64,
    d_rnorm: *mut c_void,
    d_x: *mut c_void,
    d_r: *mut c_void,
    d_p: *mut c_void,
    n: usize,
}

fn rt(code: c_int) -> Result<(), String> {
    if code == 0 { Ok(()) } else { Err(format!("cudart error {code}")) }
}

impl CgSolver {
    /// `d_*` are device vectors of `n` doubles the caller allocated; `d_rnorm` is one double.
    pub fn new(stream: Stream, n: usize, d_x: *mut c_void, d_r: *mut c_void, d_p: *mut c_void, d_rnorm: *mut c_void) -> Result<Self, String> {
        let mut s = CgSolver { stream, residual_ready: null_mut(), h_rnorm: null_mut(), d_rnorm, d_x, d_r, d_p, n };
        unsafe {
            let mut h = null_mut();
            rt(cudaMallocHost(&mut h, std::mem::size_of::<f64>()))?;
            s.h_rnorm = h.cast();
            rt(cudaEventCreateWithFlags(&mut s.residual_ready, EVENT_DISABLE_TIMING))?;
        }
        Ok(s)
    }

    fn iterate(&mut self) -> Result<(), String> {
        let mut n = self.n as c_int;
        let mut args = [
            (&mut self.d_x) as *mut _ as *mut c_void,
            (&mut self.d_r) as *mut _ as *mut c_void,
            (&mut self.d_p) as *mut _ as *mut c_void,
            (&mut self.d_rnorm) as *mut _ as *mut c_void,
            (&mut n) as *mut c_int as *mut c_void,
        ];
        let grid = Dim3 { x: (self.n as u32).div_ceil(256), y: 1, z: 1 };
        let block = Dim3 { x: 256, y: 1, z: 1 };
        unsafe {
            rt(cudaLaunchKernel(&raw const cg_iteration as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream))?;
            rt(cudaMemcpyAsync(self.h_rnorm.cast(), self.d_rnorm, std::mem::size_of::<f64>(), D2H, self.stream))?;
            rt(cudaEventRecord(self.residual_ready, self.stream))
        }
    }

    fn wait_residual(&self) -> Result<f64, String> {
        unsafe {
            rt(cudaEventSynchronize(self.residual_ready))?;
            Ok(*self.h_rnorm)
        }
    }

    pub fn solve(&mut self, tol: f64, max_iter: usize) -> Result<(usize, f64), String> {
        let mut rnorm = f64::INFINITY;
        for it in 0..max_iter {
            self.iterate()?;
            rnorm = self.wait_residual()?;
            if rnorm.sqrt() < tol {
                return Ok((it + 1, rnorm.sqrt()));
            }
        }
        Ok((max_iter, rnorm.sqrt()))
    }
}

impl Drop for CgSolver {
    fn drop(&mut self) {
        unsafe {
            cudaEventSynchronize(self.residual_ready);
            cudaEventDestroy(self.residual_ready);
            cudaFreeHost(self.h_rnorm.cast());
        }
    }
}
