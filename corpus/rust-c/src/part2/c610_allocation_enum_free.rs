//! case: a buffer registry over `cudarc::runtime::sys` keeps device, pinned and managed allocations in one enum and releases each in `Drop` with the function of its own allocator (cudaFree for device and managed, cudaFreeHost for pinned, reached through a type alias)
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys;

/// Host pointers returned by `cudaMallocHost`.
pub type PinnedPtr = *mut c_void;
/// Device (or managed) pointers returned by `cudaMalloc` / `cudaMallocManaged`.
pub type DevPtr = *mut c_void;

pub enum Allocation {
    Device { ptr: DevPtr, bytes: usize },
    Pinned { ptr: PinnedPtr, bytes: usize },
    Managed { ptr: DevPtr, bytes: usize },
}

impl Allocation {
    pub fn device(bytes: usize) -> Result<Self, RuntimeError> {
        let mut ptr: DevPtr = null_mut();
        unsafe { sys::cudaMalloc(&mut ptr, bytes).result()? };
        Ok(Allocation::Device { ptr, bytes })
    }

    pub fn pinned(bytes: usize) -> Result<Self, RuntimeError> {
        let mut ptr: PinnedPtr = null_mut();
        unsafe { sys::cudaMallocHost(&mut ptr, bytes).result()? };
        Ok(Allocation::Pinned { ptr, bytes })
    }

    pub fn managed(bytes: usize) -> Result<Self, RuntimeError> {
        let mut ptr: DevPtr = null_mut();
        unsafe { sys::cudaMallocManaged(&mut ptr, bytes, sys::cudaMemAttachGlobal).result()? };
        Ok(Allocation::Managed { ptr, bytes })
    }

    pub fn bytes(&self) -> usize {
        match self {
            Allocation::Device { bytes, .. } | Allocation::Pinned { bytes, .. } | Allocation::Managed { bytes, .. } => *bytes,
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        let status = unsafe {
            match *self {
                Allocation::Device { ptr, .. } | Allocation::Managed { ptr, .. } => sys::cudaFree(ptr),
                Allocation::Pinned { ptr, .. } => sys::cudaFreeHost(ptr),
            }
        };
        if status != sys::cudaError_t::cudaSuccess {
            eprintln!("release of a {}-byte allocation failed: {status:?}", self.bytes());
        }
    }
}

#[derive(Default)]
pub struct Registry {
    live: Vec<(String, Allocation)>,
}

impl Registry {
    pub fn add(&mut self, name: &str, a: Allocation) -> usize {
        self.live.push((name.to_owned(), a));
        self.live.len() - 1
    }

    pub fn total_bytes(&self) -> usize {
        self.live.iter().map(|(_, a)| a.bytes()).sum()
    }

    /// Drops every allocation whose name starts with `prefix`, after the device is idle.
    pub fn release_prefix(&mut self, prefix: &str) -> Result<usize, RuntimeError> {
        unsafe { sys::cudaDeviceSynchronize().result()? };
        let before = self.live.len();
        self.live.retain(|(name, _)| !name.starts_with(prefix));
        Ok(before - self.live.len())
    }
}

pub fn setup(layers: usize, hidden: usize) -> Result<Registry, RuntimeError> {
    let mut reg = Registry::default();
    for l in 0..layers {
        reg.add(&format!("layer{l}.weight"), Allocation::device(hidden * hidden * 2)?);
    }
    reg.add("io.staging", Allocation::pinned(hidden * 4 * 64)?);
    reg.add("io.counters", Allocation::managed(4096)?);
    println!("{} bytes registered", reg.total_bytes());
    Ok(reg)
}
