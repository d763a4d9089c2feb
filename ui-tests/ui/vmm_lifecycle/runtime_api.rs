// Mappings made with the driver API (the runtime API has no VMM calls) and used through the
// runtime API: `cudaMemsetAsync`, `cudaMemcpyAsync`, `cudaLaunchKernel`.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as cu;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t, dim3};

const BYTES: usize = 2 << 20;

unsafe fn physical() -> cu::CUmemGenericAllocationHandle {
    unsafe {
        let mut prop: cu::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = cu::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: cu::CUmemGenericAllocationHandle = 0;
        cu::cuMemCreate(&mut handle, BYTES, &prop, 0);
        handle
    }
}

unsafe fn map_new() -> u64 {
    unsafe {
        let mut va: u64 = 0;
        cu::cuMemAddressReserve(&mut va, BYTES, 0, 0, 0);
        cu::cuMemMap(va, BYTES, 0, physical(), 0);
        va
    }
}

unsafe fn grant(va: u64, device: i32) {
    unsafe {
        let mut access: cu::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = cu::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cu::cuMemSetAccess(va, BYTES, &access, 1);
    }
}

fn fires_runtime_memset_on_a_fresh_mapping(stream: cudaStream_t) {
    unsafe {
        let va = map_new();
        sys::cudaMemsetAsync(va as *mut c_void, 0, BYTES, stream);
        //~^ vmm_lifecycle
        sys::cudaStreamSynchronize(stream);
    }
}

fn fires_runtime_copy_into_a_fresh_mapping(host: &[u8], stream: cudaStream_t) {
    unsafe {
        let va = map_new();
        sys::cudaMemcpyAsync(va as *mut c_void, host.as_ptr().cast(), BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        //~^ vmm_lifecycle
        sys::cudaStreamSynchronize(stream);
    }
}

fn fires_runtime_launch_on_a_fresh_mapping(kernel: *const c_void) {
    unsafe {
        let mut va = map_new();
        let mut args = [&mut va as *mut u64 as *mut c_void];
        let grid = dim3 { x: 512, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, null_mut());
        //~^ vmm_lifecycle
        sys::cudaDeviceSynchronize();
    }
}

fn ok_runtime_memset_after_access(stream: cudaStream_t) {
    unsafe {
        let va = map_new();
        grant(va, 0);
        sys::cudaMemsetAsync(va as *mut c_void, 0, BYTES, stream);
        sys::cudaStreamSynchronize(stream);
    }
}

fn ok_runtime_copy_after_access_for_the_current_device(host: &[u8], stream: cudaStream_t) {
    unsafe {
        let mut device = 0;
        sys::cudaGetDevice(&mut device);
        let va = map_new();
        grant(va, device);
        sys::cudaMemcpyAsync(va as *mut c_void, host.as_ptr().cast(), BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, stream);
        sys::cudaStreamSynchronize(stream);
    }
}

fn ok_runtime_launch_after_access(kernel: *const c_void) {
    unsafe {
        let mut va = map_new();
        grant(va, 0);
        let mut args = [&mut va as *mut u64 as *mut c_void];
        let grid = dim3 { x: 512, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
    }
}

fn main() {}
