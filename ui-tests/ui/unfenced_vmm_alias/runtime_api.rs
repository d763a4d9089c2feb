// Runtime-API work (`cudaMemsetAsync`, `cudaMemcpyAsync`, `cudaLaunchKernel`) on two VMM
// mappings of one physical allocation made with the driver API.
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as cu;
use cudarc::runtime::sys::{self, cudaEvent_t, cudaMemcpyKind, cudaStream_t, dim3};

const BYTES: usize = 2 << 20;

unsafe fn two_mappings() -> (u64, u64) {
    unsafe {
        let mut prop: cu::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = cu::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        let mut handle: cu::CUmemGenericAllocationHandle = 0;
        cu::cuMemCreate(&mut handle, BYTES, &prop, 0);
        let mut a: u64 = 0;
        let mut b: u64 = 0;
        cu::cuMemAddressReserve(&mut a, BYTES, 0, 0, 0);
        cu::cuMemAddressReserve(&mut b, BYTES, 0, 0, 0);
        cu::cuMemMap(a, BYTES, 0, handle, 0);
        cu::cuMemMap(b, BYTES, 0, handle, 0);
        let mut access: cu::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = cu::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cu::cuMemSetAccess(a, BYTES, &access, 1);
        cu::cuMemSetAccess(b, BYTES, &access, 1);
        (a, b)
    }
}

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

fn fires_memset_and_copy_on_two_streams(host: *mut c_void) {
    unsafe {
        let (a, b) = two_mappings();
        let writer = stream();
        let reader = stream();
        sys::cudaMemsetAsync(a as *mut c_void, 0, BYTES, writer);
        sys::cudaMemcpyAsync(host, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, reader);
        //~^ unfenced_vmm_alias
        sys::cudaDeviceSynchronize();
    }
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_one_launch_given_both_mappings(kernel: *const c_void) {
    unsafe {
        let (mut a, mut b) = two_mappings();
        let mut args = [&mut a as *mut u64 as *mut c_void, &mut b as *mut u64 as *mut c_void];
        let grid = dim3 { x: 512, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
    }
}

fn fires_launch_then_copy_on_another_stream(kernel: *const c_void, host: *mut c_void) {
    unsafe {
        let (mut a, b) = two_mappings();
        let compute = stream();
        let copy = stream();
        let mut args = [&mut a as *mut u64 as *mut c_void];
        let grid = dim3 { x: 512, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, compute);
        sys::cudaMemcpyAsync(host, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDefault, copy);
        //~^ unfenced_vmm_alias
        sys::cudaDeviceSynchronize();
    }
}

fn ok_second_stream_waits_on_an_event(host: *mut c_void) {
    unsafe {
        let (a, b) = two_mappings();
        let writer = stream();
        let reader = stream();
        let mut written: cudaEvent_t = null_mut();
        sys::cudaEventCreate(&mut written);
        sys::cudaMemsetAsync(a as *mut c_void, 0, BYTES, writer);
        sys::cudaEventRecord(written, writer);
        sys::cudaStreamWaitEvent(reader, written, 0);
        sys::cudaMemcpyAsync(host, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, reader);
        sys::cudaDeviceSynchronize();
    }
}

fn ok_one_stream(host: *mut c_void) {
    unsafe {
        let (a, b) = two_mappings();
        let s = stream();
        sys::cudaMemsetAsync(a as *mut c_void, 0, BYTES, s);
        sys::cudaMemcpyAsync(host, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s);
        sys::cudaStreamSynchronize(s);
    }
}

fn ok_launch_given_one_mapping(kernel: *const c_void) {
    unsafe {
        let (mut a, _b) = two_mappings();
        let mut args = [&mut a as *mut u64 as *mut c_void];
        let grid = dim3 { x: 512, y: 1, z: 1 };
        let block = dim3 { x: 1024, y: 1, z: 1 };
        sys::cudaLaunchKernel(kernel, grid, block, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
    }
}

fn ok_device_synchronized_between_the_streams(host: *mut c_void) {
    unsafe {
        let (a, b) = two_mappings();
        let writer = stream();
        let reader = stream();
        sys::cudaMemsetAsync(a as *mut c_void, 0, BYTES, writer);
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpyAsync(host, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, reader);
        sys::cudaDeviceSynchronize();
    }
}

fn fires_copy_in_then_copy_out_through_the_other_mapping(host: *mut c_void, out: *mut c_void) {
    unsafe {
        let (a, b) = two_mappings();
        let upload = stream();
        let download = stream();
        sys::cudaMemcpyAsync(a as *mut c_void, host, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, upload);
        sys::cudaMemcpyAsync(out, b as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, download);
        //~^ unfenced_vmm_alias
        sys::cudaDeviceSynchronize();
    }
}

fn main() {}
