//@compile-flags: -W cuda_lint::unverified
// The CUDA runtime API (`cudarc::runtime::sys`): `cudaLaunchKernel` with a kernel the caller
// passes as a function pointer, or one of a library loaded from a cubin file, is not visible to
// cuda-lint. Host-visible memory is managed (`cudaMallocManaged`) or host-mapped pinned
// (`cudaHostAlloc` with `cudaHostAllocMapped`); aliases are two driver `cuMemMap`s of one
// `cuMemCreate` allocation.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as cu;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self, cudaEvent_t, cudaKernel_t, cudaLibrary_t, cudaStream_t, dim3};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;
const VMM_BYTES: usize = 2 << 20;

const SUM: &str = r#"
extern "C" __global__ void sum_into(const float* in, float* out, unsigned int n) {
    unsigned int i = threadIdx.x + blockIdx.x * blockDim.x;
    if (i < n) atomicAdd(out, in[i]);
}
"#;

const GRID: dim3 = dim3 { x: 4096, y: 1, z: 1 };
const BLOCK: dim3 = dim3 { x: 256, y: 1, z: 1 };

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreate(&mut s) };
    s
}

unsafe fn managed() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMallocManaged(&mut d, BYTES, sys::cudaMemAttachGlobal) };
    d
}

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

/// Host-mapped pinned memory: the host pointer and the device address of the same bytes.
unsafe fn host_mapped() -> (*mut f32, *mut c_void) {
    unsafe {
        let mut host: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut host, BYTES, sys::cudaHostAllocMapped);
        let mut dev: *mut c_void = null_mut();
        sys::cudaHostGetDevicePointer(&mut dev, host, 0);
        (host as *mut f32, dev)
    }
}

/// A kernel of a library loaded from a cubin built elsewhere: its source is not in the crate.
unsafe fn kernel_from_a_cubin_file() -> *const c_void {
    unsafe {
        let mut lib: cudaLibrary_t = null_mut();
        sys::cudaLibraryLoadFromFile(
            &mut lib,
            c"kernels/scale.cubin".as_ptr(),
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        let mut k: cudaKernel_t = null_mut();
        sys::cudaLibraryGetKernel(&mut k, lib, c"scale".as_ptr());
        k as *const c_void
    }
}

unsafe fn two_mappings() -> (u64, u64) {
    unsafe {
        let mut prop: cu::CUmemAllocationProp = std::mem::zeroed();
        prop.type_ = cu::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        let mut handle: cu::CUmemGenericAllocationHandle = 0;
        cu::cuMemCreate(&mut handle, VMM_BYTES, &prop, 0);
        let mut a: u64 = 0;
        let mut b: u64 = 0;
        cu::cuMemAddressReserve(&mut a, VMM_BYTES, 0, 0, 0);
        cu::cuMemAddressReserve(&mut b, VMM_BYTES, 0, 0, 0);
        cu::cuMemMap(a, VMM_BYTES, 0, handle, 0);
        cu::cuMemMap(b, VMM_BYTES, 0, handle, 0);
        let mut access: cu::CUmemAccessDesc = std::mem::zeroed();
        access.location.type_ = cu::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.flags = cu::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        cu::cuMemSetAccess(a, VMM_BYTES, &access, 1);
        cu::cuMemSetAccess(b, VMM_BYTES, &access, 1);
        (a, b)
    }
}

fn fires_managed_read_after_a_kernel_pointer_from_the_caller(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        let first = *(data as *const f32);
        //~^ unverified
        sys::cudaStreamSynchronize(s);
        first
    }
}

// The device address `cudaHostGetDevicePointer` gives is the mapped pinned memory itself.
fn fires_host_mapped_read_after_cuda_host_get_device_pointer(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut host: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut host, BYTES, sys::cudaHostAllocMapped);
        let mut dev: *mut c_void = null_mut();
        sys::cudaHostGetDevicePointer(&mut dev, host, 0);
        let mut n = N as u32;
        let mut args = [&mut dev as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        // `dev` is the device address of the bytes `host` points at.
        let first = *(host as *const f32);
        //~^ unverified
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn fires_pinned_host_pointer_given_to_a_kernel_pointer_from_the_caller(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut host: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut host, BYTES, sys::cudaHostAllocMapped);
        let mut n = N as u32;
        // Unified addressing: the host address of mapped pinned memory is its device address.
        let mut args = [&mut host as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        let first = *(host as *const f32);
        //~^ unverified
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn fires_managed_read_after_a_kernel_from_a_cubin_file() -> f32 {
    unsafe {
        let kernel = kernel_from_a_cubin_file();
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        let first = *(data as *const f32);
        //~^ unverified
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn fires_managed_read_in_the_loop_that_launches(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut total = 0.0;
        for _ in 0..4 {
            let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
            sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
            total += *(data as *const f32);
            //~^ unverified
        }
        sys::cudaStreamSynchronize(s);
        total
    }
}

fn fires_two_mappings_given_to_a_kernel_pointer_from_the_caller(kernel: *const c_void) {
    unsafe {
        let (mut a, mut b) = two_mappings();
        let mut args = [&mut a as *mut u64 as *mut c_void, &mut b as *mut u64 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        //~^ unverified
        sys::cudaDeviceSynchronize();
    }
}

fn ok_managed_read_after_cuda_stream_synchronize(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        sys::cudaStreamSynchronize(s);
        *(data as *const f32)
    }
}

fn ok_host_mapped_read_after_an_event_synchronize(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut done: cudaEvent_t = null_mut();
        sys::cudaEventCreate(&mut done);
        let (host, mut dev) = host_mapped();
        let mut n = N as u32;
        let mut args = [&mut dev as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        sys::cudaEventRecord(done, s);
        sys::cudaEventSynchronize(done);
        *host
    }
}

fn ok_managed_read_in_the_loop_after_cuda_stream_synchronize(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let mut data = managed();
        let mut n = N as u32;
        let mut total = 0.0;
        for _ in 0..4 {
            let mut args = [&mut data as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
            sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
            sys::cudaStreamSynchronize(s);
            total += *(data as *const f32);
        }
        total
    }
}

fn ok_host_mapped_buffer_not_given_to_the_kernel(kernel: *const c_void) -> f32 {
    unsafe {
        let s = stream();
        let (host, _dev) = host_mapped();
        let mut work = device();
        let mut n = N as u32;
        let mut args = [&mut work as *mut *mut c_void as *mut c_void, &mut n as *mut u32 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        let first = *host;
        sys::cudaStreamSynchronize(s);
        first
    }
}

// A kernel loaded through `cudaLibraryLoadData` and `cudaLibraryGetKernel` from source compiled in
// the crate is followed: its source is visible, and it only reads `in`.
fn ok_host_mapped_input_of_a_kernel_from_visible_source() -> f32 {
    unsafe {
        let ptx = compile_ptx(SUM).expect("the kernel compiles");
        let image = std::ffi::CString::new(ptx.to_src()).expect("no NUL in PTX");
        let mut lib: cudaLibrary_t = null_mut();
        sys::cudaLibraryLoadData(
            &mut lib,
            image.as_ptr() as *const c_void,
            null_mut(),
            null_mut(),
            0,
            null_mut(),
            null_mut(),
            0,
        );
        let mut k: cudaKernel_t = null_mut();
        sys::cudaLibraryGetKernel(&mut k, lib, c"sum_into".as_ptr());
        let s = stream();
        let mut input: *mut c_void = null_mut();
        sys::cudaHostAlloc(&mut input, BYTES, sys::cudaHostAllocMapped);
        let mut total = device();
        let mut n = N as u32;
        // Unified addressing: the host address of mapped pinned memory is its device address.
        let mut args = [
            &mut input as *mut *mut c_void as *mut c_void,
            &mut total as *mut *mut c_void as *mut c_void,
            &mut n as *mut u32 as *mut c_void,
        ];
        sys::cudaLaunchKernel(k as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, s);
        // `sum_into` only reads `in`: reading it on the host meanwhile is fine.
        let first = *(input as *const f32);
        sys::cudaStreamSynchronize(s);
        first
    }
}

fn ok_one_mapping_given_to_a_kernel_pointer_from_the_caller(kernel: *const c_void) {
    unsafe {
        let (mut a, _b) = two_mappings();
        let mut args = [&mut a as *mut u64 as *mut c_void, &mut a as *mut u64 as *mut c_void];
        sys::cudaLaunchKernel(kernel, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
    }
}

fn main() {}
