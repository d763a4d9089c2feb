//! case: a tensor library's Storage enum whose Drop frees every non-host variant with cuMemFree, pinned storage included
//! expect: mismatched_free=1
use std::ffi::c_void;

use cudarc::driver::{sys, DriverError};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    Device,
    Managed,
    Pinned,
}

enum Storage {
    Device(sys::CUdeviceptr),
    Managed(sys::CUdeviceptr),
    Pinned(*mut c_void),
    Empty,
}

pub struct Tensor {
    storage: Storage,
    shape: Vec<usize>,
}

impl Tensor {
    pub fn empty(shape: &[usize], placement: Placement) -> Result<Self, DriverError> {
        let bytes = shape.iter().product::<usize>() * std::mem::size_of::<f32>();
        let storage = match placement {
            Placement::Device => {
                let mut p = 0;
                unsafe { sys::cuMemAlloc_v2(&mut p, bytes).result()? };
                Storage::Device(p)
            }
            Placement::Managed => {
                let mut p = 0;
                unsafe { sys::cuMemAllocManaged(&mut p, bytes, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()? };
                Storage::Managed(p)
            }
            Placement::Pinned => {
                let mut p = std::ptr::null_mut();
                unsafe { sys::cuMemAllocHost_v2(&mut p, bytes).result()? };
                Storage::Pinned(p)
            }
        };
        Ok(Self { storage, shape: shape.to_vec() })
    }

    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Moves the storage out, leaving the tensor empty (used by in-place ops that swap buffers).
    pub fn take_storage(&mut self) -> Tensor {
        let storage = std::mem::replace(&mut self.storage, Storage::Empty);
        Tensor { storage, shape: self.shape.clone() }
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        unsafe {
            match std::mem::replace(&mut self.storage, Storage::Empty) {
                Storage::Device(p) | Storage::Managed(p) => {
                    let _ = sys::cuMemFree_v2(p);
                }
                Storage::Pinned(p) => {
                    let _ = sys::cuMemFree_v2(p as sys::CUdeviceptr); // EXPECT: mismatched_free
                }
                Storage::Empty => {}
            }
        }
    }
}

pub fn build_batch() -> Result<usize, DriverError> {
    let weights = Tensor::empty(&[1024, 1024], Placement::Device)?;
    let mut staging = Tensor::empty(&[64, 1024], Placement::Pinned)?;
    let moved = staging.take_storage();
    let grads = Tensor::empty(&[1024], Placement::Managed)?;
    Ok(weights.numel() + moved.numel() + grads.numel())
}
