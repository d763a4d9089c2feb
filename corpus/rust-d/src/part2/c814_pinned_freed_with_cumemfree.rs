//! case: a shard loader over hand-declared libcuda symbols stages a shard in `cuMemAllocHost` memory, copies it to a `cuMemAlloc` buffer and synchronizes; the cleanup path releases both with `cuMemFree_v2`, which refuses the pinned host pointer (CUDA_ERROR_INVALID_VALUE, the pinned memory leaks)
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::fs::File;
use std::io::Read;
use std::path::Path;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAllocHost_v2(pp: *mut *mut c_void, bytesize: usize) -> CUresult;
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> CUresult;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> CUresult;
    fn cuMemcpyHtoDAsync_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

#[derive(Debug)]
pub enum LoadError {
    Io(std::io::Error),
    Cuda(&'static str, CUresult),
}

impl From<std::io::Error> for LoadError {
    fn from(e: std::io::Error) -> Self {
        LoadError::Io(e)
    }
}

fn cu(r: CUresult, call: &'static str) -> Result<(), LoadError> {
    if r == 0 { Ok(()) } else { Err(LoadError::Cuda(call, r)) }
}

pub struct DeviceShard {
    pub ptr: CUdeviceptr,
    pub bytes: usize,
}

/// Reads a shard file straight into pinned memory and uploads it. Returns the device copy.
pub fn load_shard(path: &Path, stream: CUstream) -> Result<DeviceShard, LoadError> {
    let mut file = File::open(path)?;
    let bytes = file.metadata()?.len() as usize;

    let mut staging: *mut c_void = std::ptr::null_mut();
    let mut dev: CUdeviceptr = 0;
    unsafe {
        cu(cuMemAllocHost_v2(&mut staging, bytes), "cuMemAllocHost_v2")?;
        cu(cuMemAlloc_v2(&mut dev, bytes), "cuMemAlloc_v2")?;
    }
    let host = unsafe { std::slice::from_raw_parts_mut(staging as *mut u8, bytes) };
    let read = file.read_exact(host);

    let result = read.map_err(LoadError::from).and_then(|()| unsafe {
        cu(cuMemcpyHtoDAsync_v2(dev, staging, bytes, stream), "cuMemcpyHtoDAsync_v2")?;
        cu(cuStreamSynchronize(stream), "cuStreamSynchronize")
    });

    unsafe {
        // the staging buffer is not needed any more, on success or failure
        cuMemFree_v2(staging as CUdeviceptr); // EXPECT: mismatched_free
        if result.is_err() {
            cuMemFree_v2(dev);
        }
    }
    result.map(|()| DeviceShard { ptr: dev, bytes })
}
