//! case: a bindings crate's `DeviceArray` implements `Index` by dereferencing its cuMemAlloc'd pointer on the host
//! expect: host_deref_device_ptr=1
use std::ops::Index;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::DriverError;

pub struct DeviceArray {
    ptr: CUdeviceptr,
    len: usize,
}

impl DeviceArray {
    pub fn zeroed(len: usize) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAlloc_v2(&mut ptr, len * 4).result()?;
            sys::cuMemsetD32_v2(ptr, 0, len).result()?;
        }
        Ok(Self { ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

impl Index<usize> for DeviceArray {
    type Output = f32;
    fn index(&self, i: usize) -> &f32 {
        assert!(i < self.len, "index out of bounds");
        // `ptr` came from cuMemAlloc_v2: a device address.
        unsafe { &*((self.ptr as *const f32).add(i)) } // EXPECT: host_deref_device_ptr
    }
}

impl Drop for DeviceArray {
    fn drop(&mut self) {
        unsafe { sys::cuMemFree_v2(self.ptr) };
    }
}

pub fn last_or_zero(a: &DeviceArray) -> f32 {
    if a.len() == 0 { 0.0 } else { a[a.len() - 1] }
}
