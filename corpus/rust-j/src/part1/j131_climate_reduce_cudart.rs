//! case: climate-model diagnostics reduce the temperature field per latitude band on the GPU and copy the band sums into a cudaMallocHost buffer with cudaMemcpyAsync; the host computes the area-weighted global mean from that buffer before cudaStreamSynchronize
//! expect: missing_sync=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys as rt;

#[derive(Debug)]
pub struct DiagError(pub rt::cudaError_t);

fn ck(e: rt::cudaError_t) -> Result<(), DiagError> {
    if e == rt::cudaError_t::cudaSuccess { Ok(()) } else { Err(DiagError(e)) }
}

pub trait BandReducer {
    /// Enqueues the per-band reduction of `field` into `band_sums` on `stream`.
    fn reduce(&self, field: *const f32, band_sums: *mut f32, nlat: usize, nlon: usize, stream: rt::cudaStream_t) -> Result<(), DiagError>;
}

pub struct GlobalMean {
    stream: rt::cudaStream_t,
    d_bands: *mut c_void,
    h_bands: *mut f32,
    weights: Vec<f64>,
    nlon: usize,
}

impl GlobalMean {
    pub fn new(nlat: usize, nlon: usize) -> Result<Self, DiagError> {
        let mut stream = null_mut();
        let mut d = null_mut();
        let mut h = null_mut();
        unsafe {
            ck(rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking))?;
            ck(rt::cudaMalloc(&mut d, nlat * 4))?;
            ck(rt::cudaMallocHost(&mut h, nlat * 4))?;
        }
        let weights = (0..nlat)
            .map(|j| {
                let lat = -90.0 + 180.0 * (j as f64 + 0.5) / nlat as f64;
                lat.to_radians().cos()
            })
            .collect();
        Ok(Self { stream, d_bands: d, h_bands: h.cast(), weights, nlon })
    }

    pub fn compute<R: BandReducer>(&mut self, reducer: &R, d_field: *const f32) -> Result<f64, DiagError> {
        let nlat = self.weights.len();
        reducer.reduce(d_field, self.d_bands.cast(), nlat, self.nlon, self.stream)?;
        unsafe {
            ck(rt::cudaMemcpyAsync(self.h_bands.cast(), self.d_bands, nlat * 4, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream))?;
        }
        let bands = unsafe { std::slice::from_raw_parts(self.h_bands, nlat) };
        let weighted: f64 = bands.iter().zip(&self.weights).map(|(&s, &w)| s as f64 * w).sum(); // EXPECT: missing_sync
        let norm: f64 = self.weights.iter().sum::<f64>() * self.nlon as f64;
        unsafe { ck(rt::cudaStreamSynchronize(self.stream))? };
        Ok(weighted / norm)
    }
}

impl Drop for GlobalMean {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.d_bands);
            rt::cudaFreeHost(self.h_bands.cast());
            rt::cudaStreamDestroy(self.stream);
        }
    }
}
