//! case: DFT code reads the electron density grid back through the CUDA runtime API (cudarc `runtime::sys`) into a cudaMallocHost buffer, integrates it after cudaStreamSynchronize, and its cleanup releases that pinned buffer with cudaFree instead of cudaFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys as rt;

#[derive(Debug)]
pub struct RtError(pub rt::cudaError_t, pub &'static str);

fn ck(e: rt::cudaError_t, what: &'static str) -> Result<(), RtError> {
    if e == rt::cudaError_t::cudaSuccess { Ok(()) } else { Err(RtError(e, what)) }
}

pub struct DensityGrid {
    pub nx: usize,
    pub ny: usize,
    pub nz: usize,
    pub voxel_volume: f64,
}

/// Device-side density produced by the SCF cycle (`d_rho`), integrated on the host.
pub struct DensityReadback {
    stream: rt::cudaStream_t,
    h_rho: *mut f64,
    points: usize,
}

impl DensityReadback {
    pub fn new(grid: &DensityGrid) -> Result<Self, RtError> {
        let points = grid.nx * grid.ny * grid.nz;
        let mut stream: rt::cudaStream_t = null_mut();
        let mut h: *mut c_void = null_mut();
        unsafe {
            ck(rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking), "stream")?;
            ck(rt::cudaMallocHost(&mut h, points * 8), "cudaMallocHost")?;
        }
        Ok(Self { stream, h_rho: h.cast(), points })
    }

    pub fn electrons(&mut self, d_rho: *const c_void, grid: &DensityGrid) -> Result<f64, RtError> {
        unsafe {
            ck(
                rt::cudaMemcpyAsync(self.h_rho.cast(), d_rho, self.points * 8, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream),
                "readback",
            )?;
            ck(rt::cudaStreamSynchronize(self.stream), "sync")?;
            let rho = std::slice::from_raw_parts(self.h_rho, self.points);
            // Kahan sum: the grid has ~10^7 points of very different magnitude.
            let (mut sum, mut c) = (0.0f64, 0.0f64);
            for &v in rho {
                let y = v * grid.voxel_volume - c;
                let t = sum + y;
                c = (t - sum) - y;
                sum = t;
            }
            Ok(sum)
        }
    }

    pub fn release(self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.h_rho.cast()); // EXPECT: mismatched_free
            rt::cudaStreamDestroy(self.stream);
        }
        std::mem::forget(self);
    }
}
