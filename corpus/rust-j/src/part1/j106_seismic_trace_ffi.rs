//! case: seismic trace-gather filter through a hand-written driver FFI block: page-locked staging from cuMemHostAlloc for both directions, async copies, cuStreamSynchronize before the host reads, and a Drop that releases host memory with cuMemFreeHost and device memory with cuMemFree; the frees look swappable but each matches its allocator
//! expect: none

use std::ffi::{c_uint, c_void};
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUfunction = *mut c_void;

const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;
const CU_STREAM_NON_BLOCKING: c_uint = 0x01;

#[allow(non_snake_case)]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: c_uint) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuStreamCreate(stream: *mut CUstream, flags: c_uint) -> CUresult;
    fn cuStreamDestroy_v2(stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyDtoHAsync_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuLaunchKernel(
        f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint,
        shmem: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void,
    ) -> CUresult;
}

#[derive(Debug)]
pub struct CuError(pub CUresult, pub &'static str);

fn ck(code: CUresult, what: &'static str) -> Result<(), CuError> {
    if code == 0 { Ok(()) } else { Err(CuError(code, what)) }
}

/// Bandpass filter applied to a gather of `traces x samples` f32 values.
pub struct GatherFilter {
    stream: CUstream,
    bandpass: CUfunction,
    h_in: *mut f32,
    h_out: *mut f32,
    d_in: CUdeviceptr,
    d_out: CUdeviceptr,
    traces: usize,
    samples: usize,
}

impl GatherFilter {
    /// `bandpass` comes from the module loader of the processing framework.
    pub fn new(bandpass: CUfunction, traces: usize, samples: usize) -> Result<Self, CuError> {
        let bytes = traces * samples * 4;
        let mut s = GatherFilter {
            stream: null_mut(),
            bandpass,
            h_in: null_mut(),
            h_out: null_mut(),
            d_in: 0,
            d_out: 0,
            traces,
            samples,
        };
        unsafe {
            ck(cuStreamCreate(&mut s.stream, CU_STREAM_NON_BLOCKING), "cuStreamCreate")?;
            let mut p: *mut c_void = null_mut();
            ck(cuMemHostAlloc(&mut p, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc(in)")?;
            s.h_in = p.cast();
            let mut q: *mut c_void = null_mut();
            ck(cuMemHostAlloc(&mut q, bytes, CU_MEMHOSTALLOC_PORTABLE), "cuMemHostAlloc(out)")?;
            s.h_out = q.cast();
            ck(cuMemAlloc_v2(&mut s.d_in, bytes), "cuMemAlloc(in)")?;
            ck(cuMemAlloc_v2(&mut s.d_out, bytes), "cuMemAlloc(out)")?;
        }
        Ok(s)
    }

    fn bytes(&self) -> usize {
        self.traces * self.samples * 4
    }

    /// Filters one gather and returns the RMS amplitude of each trace.
    pub fn run(&mut self, gather: &[f32]) -> Result<Vec<f32>, CuError> {
        let n = self.traces * self.samples;
        assert_eq!(gather.len(), n);
        let bytes = self.bytes();
        unsafe {
            std::slice::from_raw_parts_mut(self.h_in, n).copy_from_slice(gather);
            ck(cuMemcpyHtoDAsync_v2(self.d_in, self.h_in as *const c_void, bytes, self.stream), "htod")?;
            let mut din = self.d_in;
            let mut dout = self.d_out;
            let mut ns = self.samples as i32;
            let mut nt = self.traces as i32;
            let mut params = [
                (&mut din as *mut CUdeviceptr).cast::<c_void>(),
                (&mut dout as *mut CUdeviceptr).cast::<c_void>(),
                (&mut ns as *mut i32).cast::<c_void>(),
                (&mut nt as *mut i32).cast::<c_void>(),
            ];
            ck(
                cuLaunchKernel(self.bandpass, self.traces as c_uint, 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()),
                "bandpass",
            )?;
            ck(cuMemcpyDtoHAsync_v2(self.h_out as *mut c_void, self.d_out, bytes, self.stream), "dtoh")?;
            ck(cuStreamSynchronize(self.stream), "sync")?;
            let out = std::slice::from_raw_parts(self.h_out, n);
            Ok(out
                .chunks(self.samples)
                .map(|tr| (tr.iter().map(|v| v * v).sum::<f32>() / tr.len() as f32).sqrt())
                .collect())
        }
    }
}

impl Drop for GatherFilter {
    fn drop(&mut self) {
        unsafe {
            if !self.stream.is_null() {
                cuStreamSynchronize(self.stream);
            }
            if !self.h_in.is_null() {
                cuMemFreeHost(self.h_in.cast());
            }
            if !self.h_out.is_null() {
                cuMemFreeHost(self.h_out.cast());
            }
            if self.d_in != 0 {
                cuMemFree_v2(self.d_in);
            }
            if self.d_out != 0 {
                cuMemFree_v2(self.d_out);
            }
            if !self.stream.is_null() {
                cuStreamDestroy_v2(self.stream);
            }
        }
    }
}
