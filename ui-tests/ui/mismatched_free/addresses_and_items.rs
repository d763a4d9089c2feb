// Memory kept in fields and collections, released elsewhere: a device address kept as a number
// (`CUdeviceptr`) in a field every constructor fills with device memory, and host slots taken
// out of a `Vec` one by one (`drain(..)`): each is released by the allocator that made it, or
// not.
use std::ffi::c_void;

use cudarc::driver::{result, sys};

struct Table {
    table: sys::CUdeviceptr,
    len: usize,
}

impl Table {
    fn new(len: usize) -> Result<Table, result::DriverError> {
        Ok(Table { table: unsafe { result::malloc_sync(len * 4)? }, len })
    }

    fn fires_device_address_field_released_as_pinned_memory(self) -> Result<(), result::DriverError> {
        unsafe { result::free_host(self.table as *mut c_void) } //~ mismatched_free
    }

    fn ok_device_address_field_released_as_device_memory(self) -> Result<(), result::DriverError> {
        unsafe { result::free_sync(self.table) }
    }

    fn ok_length_field_is_no_address(&self) -> usize {
        self.len
    }
}

struct Slot {
    host: *mut c_void,
    bytes: usize,
}

struct Ring {
    slots: Vec<Slot>,
}

impl Ring {
    fn new(bytes: usize, depth: usize) -> Result<Ring, result::DriverError> {
        let slots = (0..depth)
            .map(|_| Ok(Slot { host: unsafe { result::malloc_host(bytes, 0)? }, bytes }))
            .collect::<Result<Vec<_>, result::DriverError>>()?;
        Ok(Ring { slots })
    }

    fn fires_drained_pinned_slots_released_as_device_memory(mut self) -> Result<(), result::DriverError> {
        for slot in self.slots.drain(..) {
            unsafe { result::free_sync(slot.host as sys::CUdeviceptr)? }; //~ mismatched_free
        }
        Ok(())
    }

    fn ok_drained_pinned_slots_released_as_pinned_memory(mut self) -> Result<(), result::DriverError> {
        for slot in self.slots.drain(..) {
            unsafe { result::free_host(slot.host)? };
        }
        Ok(())
    }
}

/// Pinned records whose `Drop` names no CUDA function: it is analysed with what `new` made.
struct PinnedRecords {
    ptr: *mut u8,
}

impl PinnedRecords {
    fn new(bytes: usize) -> PinnedRecords {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe { cudarc::runtime::sys::cudaMallocHost(&mut p, bytes) };
        PinnedRecords { ptr: p.cast() }
    }
}

impl Drop for PinnedRecords {
    fn drop(&mut self) {
        unsafe { libc::free(self.ptr.cast()) }; //~ mismatched_free
    }
}

/// The same, released by the matching function.
struct MatchedRecords {
    ptr: *mut u8,
}

impl MatchedRecords {
    fn new(bytes: usize) -> MatchedRecords {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe { cudarc::runtime::sys::cudaMallocHost(&mut p, bytes) };
        MatchedRecords { ptr: p.cast() }
    }
}

impl Drop for MatchedRecords {
    fn drop(&mut self) {
        unsafe { cudarc::runtime::sys::cudaFreeHost(self.ptr.cast()) };
    }
}

// One enum for every allocator, its `Drop` matching on the variant: an allocation made as
// `Heap` and unwrapped with `ok_or(..)?` keeps its variant, so only `free` releases it.
enum Allocation {
    Pinned { ptr: *mut std::ffi::c_void },
    Heap { ptr: *mut std::ffi::c_void },
}

impl Allocation {
    fn heap(bytes: usize) -> Option<Allocation> {
        let ptr = unsafe { libc::malloc(bytes) };
        (!ptr.is_null()).then_some(Allocation::Heap { ptr })
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        unsafe {
            match *self {
                Allocation::Pinned { ptr } => {
                    let _ = cudarc::driver::sys::cuMemFreeHost(ptr);
                }
                Allocation::Heap { ptr } => libc::free(ptr),
            }
        }
    }
}

fn ok_heap_allocation_unwrapped_with_ok_or() -> Result<(), &'static str> {
    let log = Allocation::heap(4096).ok_or("out of host memory")?;
    drop(log);
    Ok(())
}

fn main() {}
