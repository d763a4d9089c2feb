//! case: the attention workspace released correctly: the one-off workspace is swapped out with `mem::replace` and freed with `cuMemFreeAsync` on the stream the kernel runs on, which orders the free after the kernel; `Drop` does the same, then synchronizes
//! expect: none
use std::ffi::c_void;
use std::mem;
use std::ptr::null_mut;

use cudarc::driver::{result::DriverError, sys};

#[derive(Default)]
enum Workspace {
    #[default]
    None,
    Pooled { ptr: sys::CUdeviceptr, bytes: usize },
}

pub struct PooledAttention {
    stream: sys::CUstream,
    kernel: sys::CUfunction,
    workspace: Workspace,
}

impl PooledAttention {
    pub fn new(stream: sys::CUstream, kernel: sys::CUfunction) -> Self {
        Self { stream, kernel, workspace: Workspace::None }
    }

    fn workspace(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        if let Workspace::Pooled { ptr, bytes: cap } = self.workspace {
            if cap >= bytes {
                return Ok(ptr);
            }
        }
        let mut ptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, self.stream).result()? };
        if let Workspace::Pooled { ptr: old, .. } = mem::replace(&mut self.workspace, Workspace::Pooled { ptr, bytes }) {
            unsafe { sys::cuMemFreeAsync(old, self.stream).result()? };
        }
        Ok(ptr)
    }

    pub fn forward(&mut self, mut q: sys::CUdeviceptr, mut out: sys::CUdeviceptr, seq: usize) -> Result<(), DriverError> {
        let mut ws = self.workspace(seq * seq * 4)?;
        let mut seq_i = seq as i32;
        let mut params = [
            &mut q as *mut _ as *mut c_void,
            &mut ws as *mut _ as *mut c_void,
            &mut out as *mut _ as *mut c_void,
            &mut seq_i as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.kernel, seq as u32, 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()?;
        }
        if seq > 8192 {
            if let Workspace::Pooled { ptr, .. } = mem::take(&mut self.workspace) {
                // Stream-ordered: runs after the kernel above.
                unsafe { sys::cuMemFreeAsync(ptr, self.stream).result()? };
            }
        }
        Ok(())
    }
}

impl Drop for PooledAttention {
    fn drop(&mut self) {
        if let Workspace::Pooled { ptr, .. } = mem::take(&mut self.workspace) {
            unsafe {
                let _ = sys::cuMemFreeAsync(ptr, self.stream);
            }
        }
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
        }
    }
}
