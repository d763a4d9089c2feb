//! case: quantum-chemistry Fock builder uploads the screened two-electron integral batch from a pageable Vec with cudaMemcpyAsync (runtime API) each SCF iteration; the readback of the Fock matrix goes to a cudaMallocHost buffer and is read after cudaStreamSynchronize
//! expect: pageable_async_copy=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys as rt;

#[derive(Debug)]
pub struct ScfError(pub rt::cudaError_t, pub &'static str);

fn ck(e: rt::cudaError_t, what: &'static str) -> Result<(), ScfError> {
    if e == rt::cudaError_t::cudaSuccess { Ok(()) } else { Err(ScfError(e, what)) }
}

/// A batch of (ij|kl) integrals surviving Schwarz screening, with their packed indices.
pub struct EriBatch {
    pub values: Vec<f64>,
    pub quartets: Vec<u64>,
}

pub struct FockBuilder {
    stream: rt::cudaStream_t,
    d_eri: *mut c_void,
    d_fock: *mut c_void,
    h_fock: *mut f64,
    nbf: usize,
    max_eri: usize,
}

impl FockBuilder {
    pub fn new(nbf: usize, max_eri: usize) -> Result<Self, ScfError> {
        let mut s = FockBuilder { stream: null_mut(), d_eri: null_mut(), d_fock: null_mut(), h_fock: null_mut(), nbf, max_eri };
        let mut h: *mut c_void = null_mut();
        unsafe {
            ck(rt::cudaStreamCreateWithFlags(&mut s.stream, rt::cudaStreamNonBlocking), "stream")?;
            ck(rt::cudaMalloc(&mut s.d_eri, max_eri * 8), "eri")?;
            ck(rt::cudaMalloc(&mut s.d_fock, nbf * nbf * 8), "fock")?;
            ck(rt::cudaMallocHost(&mut h, nbf * nbf * 8), "fock host")?;
        }
        s.h_fock = h.cast();
        Ok(s)
    }

    /// `contract` enqueues the J/K contraction of `d_eri` into `d_fock` (a cuBLAS-style library call).
    pub fn iterate<F>(&mut self, batch: &EriBatch, contract: F) -> Result<f64, ScfError>
    where
        F: FnOnce(*const c_void, *mut c_void, rt::cudaStream_t) -> Result<(), ScfError>,
    {
        let n = batch.values.len().min(self.max_eri);
        let fock_bytes = self.nbf * self.nbf * 8;
        unsafe {
            ck(rt::cudaMemcpyAsync(self.d_eri, batch.values.as_ptr().cast(), n * 8, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream), "eri upload")?; // EXPECT: pageable_async_copy
            ck(rt::cudaMemsetAsync(self.d_fock, 0, fock_bytes, self.stream), "clear")?;
        }
        contract(self.d_eri, self.d_fock, self.stream)?;
        unsafe {
            ck(rt::cudaMemcpyAsync(self.h_fock.cast(), self.d_fock, fock_bytes, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream), "fock readback")?;
            ck(rt::cudaStreamSynchronize(self.stream), "sync")?;
        }
        let f = unsafe { std::slice::from_raw_parts(self.h_fock, self.nbf * self.nbf) };
        let trace: f64 = (0..self.nbf).map(|i| f[i * self.nbf + i]).sum();
        Ok(trace)
    }
}

impl Drop for FockBuilder {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.stream);
            rt::cudaFree(self.d_eri);
            rt::cudaFree(self.d_fock);
            rt::cudaFreeHost(self.h_fock.cast());
            rt::cudaStreamDestroy(self.stream);
        }
    }
}
