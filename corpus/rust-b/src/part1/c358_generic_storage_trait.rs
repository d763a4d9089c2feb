//! case: a generic statistics helper reads `*storage.as_ptr()` through a trait; one implementation hands out a cuMemAlloc'd device address
//! expect: host_deref_device_ptr=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::DriverError;

pub trait Storage {
    fn as_ptr(&self) -> *const f32;
    fn len(&self) -> usize;
}

pub struct HostStorage(pub Vec<f32>);

impl Storage for HostStorage {
    fn as_ptr(&self) -> *const f32 { self.0.as_ptr() }
    fn len(&self) -> usize { self.0.len() }
}

pub struct GpuStorage {
    dptr: CUdeviceptr,
    len: usize,
}

impl GpuStorage {
    pub fn alloc(len: usize) -> Result<Self, DriverError> {
        let mut dptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut dptr, len * 4) }.result()?;
        Ok(Self { dptr, len })
    }
}

impl Storage for GpuStorage {
    fn as_ptr(&self) -> *const f32 { self.dptr as *const f32 }
    fn len(&self) -> usize { self.len }
}

pub fn first_value<S: Storage>(s: &S) -> Option<f32> {
    if s.len() == 0 {
        return None;
    }
    Some(unsafe { *s.as_ptr() }) // EXPECT: host_deref_device_ptr
}

pub fn report(len: usize) -> Result<(Option<f32>, Option<f32>), DriverError> {
    let host = HostStorage(vec![1.0; len]);
    let gpu = GpuStorage::alloc(len)?;
    // The host instantiation is fine; the GPU one reads a device address on the host.
    Ok((first_value(&host), first_value(&gpu)))
}
