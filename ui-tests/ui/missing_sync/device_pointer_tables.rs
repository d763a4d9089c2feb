//@no-rustfix
// Raw device pointers that escape into a device-side table: the addresses are gathered on the
// host (`device_ptr(&s).0`, `CUdeviceptr`s), copied to the device, and a kernel gets the table.
// The kernel reaches every buffer in it, and cudarc records no event on them (only on the
// table): freeing one before the kernel is done is a use after free (real-bugs: pointer tables
// of batched kernels). (The tables are uploaded from pageable memory: not this file's subject.)
#![cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))]
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self as cu, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

/// A blocking stream: it waits for the blocking upload of the table (the legacy stream).
unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, 0) };
    s
}

unsafe fn buffer() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

/// Uploads a table of device addresses (blocking).
unsafe fn upload_table(ptrs: &[CUdeviceptr]) -> CUdeviceptr {
    unsafe {
        let mut table: CUdeviceptr = 0;
        cu::cuMemAlloc_v2(&mut table, ptrs.len() * 8);
        cu::cuMemcpyHtoD_v2(table, ptrs.as_ptr() as *const c_void, ptrs.len() * 8);
        table
    }
}

unsafe fn launch_with_table(f: CUfunction, s: CUstream, table: &mut CUdeviceptr) {
    let mut args = [table as *mut CUdeviceptr as *mut c_void];
    unsafe { cu::cuLaunchKernel(f, 1, 1, 1, 256, 1, 1, 0, s, args.as_mut_ptr(), null_mut()) };
}

fn fires_cudarc_buffer_in_a_table_dropped_while_the_kernel_reads_it(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let a = owner.alloc_zeros::<f32>(N)?;
    let b = owner.alloc_zeros::<f32>(N)?;
    let ptrs: Vec<u64> = vec![a.device_ptr(&owner).0, b.device_ptr(&owner).0];
    let table: CudaSlice<u64> = worker.clone_htod(&ptrs)?;
    let mut launch = worker.launch_builder(f);
    launch.arg(&table);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? }; //~ missing_sync
    drop(a);
    //~^ missing_sync
    worker.synchronize()
}

fn fires_array_table_buffer_dropped(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let input = owner.alloc_zeros::<f32>(N)?;
    let output = owner.alloc_zeros::<f32>(N)?;
    let ptrs = [input.device_ptr(&owner).0, output.device_ptr(&owner).0];
    let table = worker.clone_htod(&ptrs)?;
    let mut launch = worker.launch_builder(f);
    launch.arg(&table);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? }; //~ missing_sync
    drop(output);
    //~^ missing_sync
    worker.synchronize()
}

fn fires_raw_table_buffer_freed_on_another_stream(f: CUfunction) {
    unsafe {
        let work = stream();
        let cleanup = stream();
        let (x, y) = (buffer(), buffer());
        let mut table = upload_table(&[x, y]);
        launch_with_table(f, work, &mut table);
        cu::cuMemFreeAsync(y, cleanup);
        //~^ missing_sync
        cu::cuStreamSynchronize(work);
    }
}

fn ok_cudarc_table_buffers_dropped_after_the_worker_finished(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let a = owner.alloc_zeros::<f32>(N)?;
    let b = owner.alloc_zeros::<f32>(N)?;
    // The memset of `alloc_zeros` done before the raw pointer goes to another stream.
    owner.synchronize()?;
    let ptrs = [a.device_ptr(&owner).0, b.device_ptr(&owner).0];
    let table = worker.clone_htod(&ptrs)?;
    let mut launch = worker.launch_builder(f);
    launch.arg(&table);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    worker.synchronize()?;
    drop(a);
    Ok(())
}

fn ok_buffer_not_in_the_table_dropped(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let a = owner.alloc_zeros::<f32>(N)?;
    let unrelated = owner.alloc_zeros::<f32>(N)?;
    // The memset of `alloc_zeros` done before the raw pointer goes to another stream.
    owner.synchronize()?;
    let ptrs = [a.device_ptr(&owner).0];
    let table = worker.clone_htod(&ptrs)?;
    let mut launch = worker.launch_builder(f);
    launch.arg(&table);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    drop(unrelated);
    worker.synchronize()
}

fn ok_raw_table_buffer_freed_on_the_launch_stream(f: CUfunction) {
    unsafe {
        let work = stream();
        let (x, y) = (buffer(), buffer());
        let mut table = upload_table(&[x, y]);
        launch_with_table(f, work, &mut table);
        cu::cuMemFreeAsync(y, work);
        cu::cuStreamSynchronize(work);
    }
}

fn ok_raw_table_buffer_freed_after_the_wait(f: CUfunction) {
    unsafe {
        let work = stream();
        let cleanup = stream();
        let (x, y) = (buffer(), buffer());
        let mut table = upload_table(&[x, y]);
        launch_with_table(f, work, &mut table);
        cu::cuStreamSynchronize(work);
        cu::cuMemFreeAsync(y, cleanup);
    }
}

fn main() {}
