//! case: a runtime-API binding page-locks an existing Vec with cudaHostRegister and reads it right after cudaMemcpyAsync into it
//! expect: missing_sync=1
use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

pub struct Pinned<'a> {
    data: &'a mut Vec<f32>,
}

impl<'a> Pinned<'a> {
    pub fn register(data: &'a mut Vec<f32>) -> Result<Self, RuntimeError> {
        let bytes = data.len() * std::mem::size_of::<f32>();
        unsafe { sys::cudaHostRegister(data.as_mut_ptr().cast(), bytes, sys::cudaHostRegisterDefault) }.result()?;
        Ok(Self { data })
    }
}

impl Drop for Pinned<'_> {
    fn drop(&mut self) {
        unsafe { sys::cudaHostUnregister(self.data.as_mut_ptr().cast()) };
    }
}

pub fn residuals(d_res: *const c_void, n: usize) -> Result<f32, RuntimeError> {
    let mut stream: cudaStream_t = ptr::null_mut();
    unsafe { sys::cudaStreamCreateWithFlags(&mut stream, sys::cudaStreamNonBlocking) }.result()?;
    let mut host = vec![0.0f32; n];
    let max = {
        let pinned = Pinned::register(&mut host)?;
        unsafe {
            sys::cudaMemcpyAsync(pinned.data.as_mut_ptr().cast(), d_res, n * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream)
        }
        .result()?;
        // Registered memory is pinned: the copy returns before it has written the Vec.
        let max = pinned.data.iter().fold(0.0f32, |m, r| m.max(r.abs())); // EXPECT: missing_sync
        // Waited for before `pinned` is unregistered at the end of the block.
        unsafe { sys::cudaStreamSynchronize(stream) }.result()?;
        max
    };
    unsafe { sys::cudaStreamDestroy(stream) }.result()?;
    Ok(max)
}
