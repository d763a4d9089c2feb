//! case: radix-2 FFT plan caching its twiddle table in portable pinned memory from cuMemHostAlloc (driver sys layer); the plan's Drop hands that pointer to libc::free instead of cuMemFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};

pub struct FftPlan {
    n: usize,
    stream: sys::CUstream,
    host_twiddles: *mut [f32; 2],
    dev_twiddles: sys::CUdeviceptr,
}

unsafe impl Send for FftPlan {}

fn check(r: sys::CUresult) -> Result<(), DriverError> {
    r.result()
}

impl FftPlan {
    pub fn new(n: usize, stream: sys::CUstream) -> Result<Self, DriverError> {
        assert!(n.is_power_of_two());
        let half = n / 2;
        let bytes = half * std::mem::size_of::<[f32; 2]>();
        let mut host: *mut c_void = null_mut();
        let mut dev: sys::CUdeviceptr = 0;
        unsafe {
            check(sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_PORTABLE))?;
            let tw = std::slice::from_raw_parts_mut(host as *mut [f32; 2], half);
            for (k, w) in tw.iter_mut().enumerate() {
                let theta = -2.0 * std::f32::consts::PI * k as f32 / n as f32;
                *w = [theta.cos(), theta.sin()];
            }
            check(sys::cuMemAlloc_v2(&mut dev, bytes))?;
            check(sys::cuMemcpyHtoDAsync_v2(dev, host, bytes, stream))?;
            check(sys::cuStreamSynchronize(stream))?;
        }
        Ok(FftPlan { n, stream, host_twiddles: host.cast(), dev_twiddles: dev })
    }

    /// Host-side twiddle lookup, used by the CPU fallback for tiny transforms.
    pub fn twiddle(&self, k: usize) -> [f32; 2] {
        unsafe { *self.host_twiddles.add(k % (self.n / 2)) }
    }

    pub fn device_table(&self) -> sys::CUdeviceptr {
        self.dev_twiddles
    }
}

impl Drop for FftPlan {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.dev_twiddles);
            libc::free(self.host_twiddles as *mut libc::c_void); // EXPECT: mismatched_free
        }
    }
}

/// Small transforms run on the CPU with the cached table.
pub fn cpu_fft_inplace(plan: &FftPlan, data: &mut [[f32; 2]]) {
    let n = data.len();
    assert_eq!(n, plan.n);
    let mut j = 0;
    for i in 1..n {
        let mut bit = n >> 1;
        while j & bit != 0 {
            j ^= bit;
            bit >>= 1;
        }
        j |= bit;
        if i < j {
            data.swap(i, j);
        }
    }
    let mut len = 2;
    while len <= n {
        for start in (0..n).step_by(len) {
            for k in 0..len / 2 {
                let w = plan.twiddle(k * (n / len));
                let (a, b) = (data[start + k], data[start + k + len / 2]);
                let t = [w[0] * b[0] - w[1] * b[1], w[0] * b[1] + w[1] * b[0]];
                data[start + k] = [a[0] + t[0], a[1] + t[1]];
                data[start + k + len / 2] = [a[0] - t[0], a[1] - t[1]];
            }
        }
        len <<= 1;
    }
}
