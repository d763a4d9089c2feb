//! case: checkpoint loader with its own extern "C" driver bindings: DMA buffers are allocated with cuMemHostAlloc (they used to be malloc + cuMemHostRegister), but the Drop still unregisters them with cuMemHostUnregister and releases them with libc::free
//! expect: mismatched_free=2

use std::ffi::{c_int, c_uint, c_void};
use std::fs::File;
use std::io::{self, Read};
use std::ptr::null_mut;

type CuResult = c_int;
type CuDevicePtr = u64;
type CuStream = *mut c_void;

const CU_MEMHOSTALLOC_PORTABLE: c_uint = 0x01;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: c_uint) -> CuResult;
    fn cuMemHostUnregister(p: *mut c_void) -> CuResult;
    fn cuMemAlloc_v2(dptr: *mut CuDevicePtr, bytesize: usize) -> CuResult;
    fn cuMemFree_v2(dptr: CuDevicePtr) -> CuResult;
    fn cuMemcpyHtoDAsync_v2(dst: CuDevicePtr, src: *const c_void, bytes: usize, stream: CuStream) -> CuResult;
    fn cuStreamCreate(stream: *mut CuStream, flags: c_uint) -> CuResult;
    fn cuStreamSynchronize(stream: CuStream) -> CuResult;
    fn cuStreamDestroy_v2(stream: CuStream) -> CuResult;
}

fn check(call: &str, r: CuResult) -> io::Result<()> {
    if r == 0 { Ok(()) } else { Err(io::Error::other(format!("{call} failed with CUresult {r}"))) }
}

/// A page-locked buffer the loader reads file extents into before DMA to the device.
pub struct DmaBuffer {
    ptr: *mut u8,
    len: usize,
}

impl DmaBuffer {
    pub fn new(len: usize) -> io::Result<Self> {
        let mut p: *mut c_void = null_mut();
        check("cuMemHostAlloc", unsafe { cuMemHostAlloc(&mut p, len, CU_MEMHOSTALLOC_PORTABLE) })?;
        Ok(Self { ptr: p.cast(), len })
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for DmaBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = cuMemHostUnregister(self.ptr.cast()); // EXPECT: mismatched_free
            libc::free(self.ptr.cast()); // EXPECT: mismatched_free
        }
    }
}

pub struct CheckpointLoader {
    stream: CuStream,
    bufs: [DmaBuffer; 2],
}

impl CheckpointLoader {
    pub fn new(extent: usize) -> io::Result<Self> {
        let mut stream: CuStream = null_mut();
        check("cuStreamCreate", unsafe { cuStreamCreate(&mut stream, 1) })?;
        Ok(Self { stream, bufs: [DmaBuffer::new(extent)?, DmaBuffer::new(extent)?] })
    }

    /// Streams a tensor of `bytes` bytes from `file` into fresh device memory.
    pub fn load_tensor(&mut self, file: &mut File, bytes: usize) -> io::Result<CuDevicePtr> {
        let mut dst: CuDevicePtr = 0;
        check("cuMemAlloc_v2", unsafe { cuMemAlloc_v2(&mut dst, bytes) })?;
        let mut done = 0usize;
        let mut k = 0usize;
        while done < bytes {
            let buf = &mut self.bufs[k % 2];
            let n = buf.len.min(bytes - done);
            // Every copy out of this buffer was synchronized below before it is reused.
            file.read_exact(&mut buf.as_mut_slice()[..n])?;
            check("cuMemcpyHtoDAsync_v2", unsafe {
                cuMemcpyHtoDAsync_v2(dst + done as u64, buf.ptr.cast(), n, self.stream)
            })?;
            if k % 2 == 1 {
                check("cuStreamSynchronize", unsafe { cuStreamSynchronize(self.stream) })?;
            }
            done += n;
            k += 1;
        }
        check("cuStreamSynchronize", unsafe { cuStreamSynchronize(self.stream) })?;
        Ok(dst)
    }

    pub fn free_tensor(&self, dptr: CuDevicePtr) -> io::Result<()> {
        check("cuMemFree_v2", unsafe { cuMemFree_v2(dptr) })
    }
}

impl Drop for CheckpointLoader {
    fn drop(&mut self) {
        unsafe {
            let _ = cuStreamSynchronize(self.stream);
            let _ = cuStreamDestroy_v2(self.stream);
        }
    }
}
