//! case: short-read DNA aligner (own extern "C" driver bindings) page-locks its packed read batch with cuMemHostRegister_v2; its Drop unregisters both the read batch and the score buffer, but the score buffer was never registered (scores are fetched with a blocking copy)
//! expect: mismatched_free=1

use std::ffi::{c_int, c_uint, c_void};
use std::ptr::null_mut;

type CUresult = c_int;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUfunction = *mut c_void;

const CU_MEMHOSTREGISTER_PORTABLE: c_uint = 1;

unsafe extern "C" {
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuMemHostRegister_v2(p: *mut c_void, bytes: usize, flags: c_uint) -> CUresult;
    fn cuMemHostUnregister(p: *mut c_void) -> CUresult;
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuLaunchKernel(
        f: CUfunction,
        gx: c_uint, gy: c_uint, gz: c_uint,
        bx: c_uint, by: c_uint, bz: c_uint,
        smem: c_uint,
        stream: CUstream,
        params: *mut *mut c_void,
        extra: *mut *mut c_void,
    ) -> CUresult;
}

#[derive(Debug)]
pub struct AlignError(pub &'static str, pub CUresult);

fn cu(what: &'static str, r: CUresult) -> Result<(), AlignError> {
    if r == 0 { Ok(()) } else { Err(AlignError(what, r)) }
}

/// 2-bit packed reads, fixed length.
pub struct ReadBatch {
    pub packed: Vec<u32>,
    pub read_len: usize,
    pub count: usize,
}

pub struct AlignerIo {
    reads: Vec<u32>,
    scores: Vec<i32>,
    d_reads: CUdeviceptr,
    d_scores: CUdeviceptr,
    stream: CUstream,
}

impl AlignerIo {
    pub fn new(batch: ReadBatch, stream: CUstream) -> Result<Self, AlignError> {
        let mut io = AlignerIo { reads: batch.packed, scores: vec![0; batch.count], d_reads: 0, d_scores: 0, stream };
        unsafe {
            cu("register reads", cuMemHostRegister_v2(io.reads.as_mut_ptr().cast(), io.reads.len() * 4, CU_MEMHOSTREGISTER_PORTABLE))?;
            cu("alloc reads", cuMemAlloc_v2(&mut io.d_reads, io.reads.len() * 4))?;
            cu("alloc scores", cuMemAlloc_v2(&mut io.d_scores, io.scores.len() * 4))?;
        }
        Ok(io)
    }

    pub fn align(&mut self, smith_waterman: CUfunction, reference: CUdeviceptr, ref_len: u32) -> Result<&[i32], AlignError> {
        let mut n = self.scores.len() as u32;
        let mut rl = ref_len;
        let mut reference = reference;
        unsafe {
            cu("upload", cuMemcpyHtoDAsync_v2(self.d_reads, self.reads.as_ptr().cast(), self.reads.len() * 4, self.stream))?;
            let mut params = [
                (&mut self.d_reads) as *mut _ as *mut c_void,
                (&mut reference) as *mut _ as *mut c_void,
                (&mut rl) as *mut u32 as *mut c_void,
                (&mut self.d_scores) as *mut _ as *mut c_void,
                (&mut n) as *mut u32 as *mut c_void,
            ];
            cu("launch", cuLaunchKernel(smith_waterman, n.div_ceil(64), 1, 1, 64, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
            cu("sync", cuStreamSynchronize(self.stream))?;
            cu("scores", cuMemcpyDtoH_v2(self.scores.as_mut_ptr().cast(), self.d_scores, self.scores.len() * 4))?;
        }
        Ok(&self.scores)
    }
}

impl Drop for AlignerIo {
    fn drop(&mut self) {
        unsafe {
            cuStreamSynchronize(self.stream);
            cuMemHostUnregister(self.reads.as_mut_ptr().cast());
            cuMemHostUnregister(self.scores.as_mut_ptr().cast()); // EXPECT: mismatched_free
            cuMemFree_v2(self.d_reads);
            cuMemFree_v2(self.d_scores);
        }
    }
}
