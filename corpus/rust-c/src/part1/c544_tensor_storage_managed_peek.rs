//! case: the same tensor `peek` helper where the device-side storage comes from `cuMemAllocManaged` (cudarc's `sys`, global attach): after `cuCtxSynchronize` the host may read managed memory through its pointer, and it is freed with `cuMemFree`
//! expect: none
use std::fmt::Write;

use cudarc::driver::sys;

pub enum Storage {
    Host(Vec<f32>),
    Managed { ptr: sys::CUdeviceptr, len: usize },
}

pub struct Tensor {
    pub shape: Vec<usize>,
    pub storage: Storage,
}

impl Tensor {
    pub fn managed(shape: Vec<usize>) -> Result<Self, sys::CUresult> {
        let len: usize = shape.iter().product();
        let mut ptr = 0;
        let rc = unsafe { sys::cuMemAllocManaged(&mut ptr, len * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32) };
        if rc != sys::CUresult::CUDA_SUCCESS {
            return Err(rc);
        }
        Ok(Tensor { shape, storage: Storage::Managed { ptr, len } })
    }

    pub fn peek(&self, n: usize) -> String {
        let values: Vec<f32> = match &self.storage {
            Storage::Host(v) => v.iter().take(n).copied().collect(),
            Storage::Managed { ptr, len } => {
                // Kernels writing this tensor may still run: wait for the whole context.
                unsafe { sys::cuCtxSynchronize() };
                let host_view = unsafe { std::slice::from_raw_parts(*ptr as *const f32, *len) };
                host_view.iter().take(n).copied().collect()
            }
        };
        let mut s = String::from("[");
        values.iter().for_each(|x| {
            let _ = write!(s, "{x:.4}, ");
        });
        s.push(']');
        s
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        if let Storage::Managed { ptr, .. } = std::mem::replace(&mut self.storage, Storage::Host(Vec::new())) {
            unsafe {
                sys::cuCtxSynchronize();
                sys::cuMemFree_v2(ptr);
            }
        }
    }
}
