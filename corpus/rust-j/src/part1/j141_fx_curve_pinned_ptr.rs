//! case: FX forward-curve bootstrapper reads the curve through a raw pointer and `slice::from_raw_parts`, but the pointer is the cuMemAllocHost (pinned host) readback, read after cuStreamSynchronize; the cuMemAlloc device pointers only ever go to driver calls, and each buffer is freed by its own allocator
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

pub struct Quote {
    pub tenor_days: u32,
    pub forward_points: f64,
}

pub struct CurveBuilder {
    stream: sys::CUstream,
    bootstrap: sys::CUfunction,
    d_quotes: sys::CUdeviceptr,
    d_curve: sys::CUdeviceptr,
    h_quotes: *mut f64,
    h_curve: *mut f64,
    max_tenors: usize,
}

fn ok(r: sys::CUresult) -> Result<(), sys::CUresult> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

impl CurveBuilder {
    pub fn new(stream: sys::CUstream, bootstrap: sys::CUfunction, max_tenors: usize) -> Result<Self, sys::CUresult> {
        let bytes = 2 * max_tenors * 8;
        let mut b = CurveBuilder { stream, bootstrap, d_quotes: 0, d_curve: 0, h_quotes: null_mut(), h_curve: null_mut(), max_tenors };
        let (mut hq, mut hc): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        unsafe {
            ok(sys::cuMemAlloc_v2(&mut b.d_quotes, bytes))?;
            ok(sys::cuMemAlloc_v2(&mut b.d_curve, max_tenors * 8))?;
            ok(sys::cuMemAllocHost_v2(&mut hq, bytes))?;
            ok(sys::cuMemAllocHost_v2(&mut hc, max_tenors * 8))?;
        }
        b.h_quotes = hq.cast();
        b.h_curve = hc.cast();
        Ok(b)
    }

    pub fn build(&mut self, spot: f64, quotes: &[Quote]) -> Result<Vec<(u32, f64)>, sys::CUresult> {
        let n = quotes.len().min(self.max_tenors);
        let staged = unsafe { std::slice::from_raw_parts_mut(self.h_quotes, 2 * n) };
        for (k, q) in quotes.iter().take(n).enumerate() {
            staged[2 * k] = q.tenor_days as f64 / 365.0;
            staged[2 * k + 1] = spot + q.forward_points * 1e-4;
        }
        unsafe {
            ok(sys::cuMemcpyHtoDAsync_v2(self.d_quotes, self.h_quotes.cast(), 2 * n * 8, self.stream))?;
            let (mut q, mut c, mut nn, mut s) = (self.d_quotes, self.d_curve, n as i32, spot);
            let mut params = [
                (&mut q as *mut sys::CUdeviceptr).cast::<c_void>(),
                (&mut c as *mut sys::CUdeviceptr).cast(),
                (&mut nn as *mut i32).cast(),
                (&mut s as *mut f64).cast(),
            ];
            ok(sys::cuLaunchKernel(self.bootstrap, 1, 1, 1, 32, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
            ok(sys::cuMemcpyDtoHAsync_v2(self.h_curve.cast(), self.d_curve, n * 8, self.stream))?;
            ok(sys::cuStreamSynchronize(self.stream))?;
        }
        let dfs = unsafe { std::slice::from_raw_parts(self.h_curve, n) };
        Ok(quotes.iter().zip(dfs).map(|(q, &df)| (q.tenor_days, df)).collect())
    }
}

impl Drop for CurveBuilder {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemFree_v2(self.d_quotes);
            sys::cuMemFree_v2(self.d_curve);
            sys::cuMemFreeHost(self.h_quotes.cast());
            sys::cuMemFreeHost(self.h_curve.cast());
        }
    }
}
