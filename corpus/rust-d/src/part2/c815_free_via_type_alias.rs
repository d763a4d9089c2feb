//! case: an upload helper over cudarc's `runtime::sys` keeps pinned and device blocks in one enum whose Drop picks the matching free (`cudaFreeHost` for `cudaMallocHost`, `cudaFree` for `cudaMalloc`), through type aliases that make both look like `*mut c_void`; the copy is synchronized before the pinned block drops
//! expect: none

use std::ffi::c_void;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

/// Page-locked host memory from `cudaMallocHost`.
pub type PinnedPtr = *mut c_void;
/// Device memory from `cudaMalloc`.
pub type DevPtr = *mut c_void;

pub enum Block {
    Pinned(PinnedPtr, usize),
    Device(DevPtr, usize),
}

impl Block {
    pub fn pinned(bytes: usize) -> Result<Block, RuntimeError> {
        let mut p: PinnedPtr = std::ptr::null_mut();
        unsafe { rt::cudaMallocHost(&mut p, bytes) }.result()?;
        Ok(Block::Pinned(p, bytes))
    }

    pub fn device(bytes: usize) -> Result<Block, RuntimeError> {
        let mut p: DevPtr = std::ptr::null_mut();
        unsafe { rt::cudaMalloc(&mut p, bytes) }.result()?;
        Ok(Block::Device(p, bytes))
    }

    pub fn ptr(&self) -> *mut c_void {
        match *self {
            Block::Pinned(p, _) | Block::Device(p, _) => p,
        }
    }

    pub fn bytes(&self) -> usize {
        match *self {
            Block::Pinned(_, n) | Block::Device(_, n) => n,
        }
    }
}

impl Drop for Block {
    fn drop(&mut self) {
        let status = match *self {
            Block::Pinned(p, _) => unsafe { rt::cudaFreeHost(p) },
            Block::Device(p, _) => unsafe { rt::cudaFree(p) },
        };
        debug_assert_eq!(status, rt::cudaError::cudaSuccess);
    }
}

/// Uploads `values` through a pinned bounce block; returns the device block.
pub fn upload(values: &[f32], stream: cudaStream_t) -> Result<Block, RuntimeError> {
    let bytes = std::mem::size_of_val(values);
    let bounce = Block::pinned(bytes)?;
    let dev = Block::device(bytes)?;
    unsafe {
        std::ptr::copy_nonoverlapping(values.as_ptr(), bounce.ptr() as *mut f32, values.len());
        rt::cudaMemcpyAsync(dev.ptr(), bounce.ptr(), bytes, cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
        // `bounce` is freed below: the copy must be done before that
        rt::cudaStreamSynchronize(stream).result()?;
    }
    drop(bounce);
    Ok(dev)
}
