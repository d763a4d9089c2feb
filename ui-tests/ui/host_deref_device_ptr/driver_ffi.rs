// Device addresses from the raw driver API are plain `u64`s: easy to cast to a host pointer.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};

const N: usize = 1024;
const BYTES: usize = N * 4;

mod ffi {
    pub type CUdeviceptr = u64;
    unsafe extern "C" {
        pub fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytes: usize) -> i32;
        pub fn cuMemAllocManaged(dptr: *mut CUdeviceptr, bytes: usize, flags: u32) -> i32;
    }
}

fn fires_cu_mem_alloc_result_read_on_the_host() -> f32 {
    unsafe {
        let mut d: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d, BYTES);
        *(d as *const f32)
        //~^ host_deref_device_ptr
    }
}

fn fires_own_binding_allocation_made_into_a_slice() -> f32 {
    unsafe {
        let mut d: ffi::CUdeviceptr = 0;
        ffi::cuMemAlloc_v2(&mut d, BYTES);
        let values = std::slice::from_raw_parts(d as *const f32, N);
        //~^ host_deref_device_ptr
        values.iter().sum()
    }
}

fn fires_host_write_through_a_device_pointer() {
    unsafe {
        let mut d: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d, BYTES);
        std::ptr::write_bytes(d as *mut u8, 0, BYTES);
        //~^ host_deref_device_ptr
    }
}

fn fires_vmm_mapping_read_on_the_host() -> u32 {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, 2 << 20, &prop, 0);
        let mut va: CUdeviceptr = 0;
        sys::cuMemAddressReserve(&mut va, 2 << 20, 0, 0, 0);
        sys::cuMemMap(va, 2 << 20, 0, handle, 0);
        *(va as *const u32)
        //~^ host_deref_device_ptr
    }
}

struct Table {
    rows: CUdeviceptr,
    len: usize,
}

impl Table {
    fn row(&self, i: usize) -> f32 {
        assert!(i < self.len);
        // A `CUdeviceptr` is a `u64`: what says this one is a device address is what the one
        // function that builds a `Table` stores in it. Reported here, where the read is.
        unsafe { *(self.rows as *const f32).add(i) }
        //~^ host_deref_device_ptr
    }
}

fn caller_of_a_row_read_through_a_method() -> f32 {
    let table = make_table();
    // (reported in `row`)
    table.row(3)
}

fn make_table() -> Table {
    let mut rows: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut rows, BYTES) };
    Table { rows, len: N }
}

fn fires_table_from_a_constructor() -> f32 {
    let table = make_table();
    unsafe { *(table.rows as *const f32) }
    //~^ host_deref_device_ptr
}

fn ok_managed_memory_read_on_the_host() -> f32 {
    unsafe {
        let mut d: CUdeviceptr = 0;
        ffi::cuMemAllocManaged(&mut d, BYTES, 1);
        *(d as *const f32)
    }
}

fn ok_pinned_memory_from_cu_mem_alloc_host() -> f32 {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut host, BYTES);
        *(host as *const f32)
    }
}

fn ok_device_pointer_copied_to_the_host_first() -> f32 {
    unsafe {
        let mut d: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d, BYTES);
        let mut out = vec![0.0f32; N];
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, d, BYTES);
        out[0]
    }
}

fn ok_device_pointer_printed_and_offset() -> CUdeviceptr {
    unsafe {
        let mut d: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d, BYTES);
        println!("device buffer at {d:#x}");
        d + 256
    }
}

fn ok_device_pointer_freed() {
    unsafe {
        let mut d: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemFree_v2(d);
    }
}

fn ok_table_rows_copied_out() -> f32 {
    let table = make_table();
    let mut out = vec![0.0f32; table.len];
    unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr() as *mut c_void, table.rows, BYTES) };
    out[0]
}

// lintcheck FP-2 (rustacuda's `DevicePointer::wrap`): the address is kept, not dereferenced.
fn ok_device_address_kept_in_a_non_null() -> Option<std::ptr::NonNull<f32>> {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    std::ptr::NonNull::new(d as *mut f32)
}

fn main() {}
