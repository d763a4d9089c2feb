// device_memory_leak through cudarc: the `driver::result` layer (`malloc_sync`/`free_sync`,
// `malloc_host`/`free_host`), whose pointers nothing frees unless the code does, and the safe
// `CudaSlice`, freed on drop (a near miss) unless `leak()` takes its pointer out of it.
// Fires: never freed, lost on a `?` return, a second allocation over the first, one
// allocation per loop round, a leaked `CudaSlice` pointer dropped, pinned memory never freed.
// Near misses: freed on every path, freed before the early return, the failed allocation,
// `CudaSlice` dropped, the leaked pointer returned or adopted again, freed and made again per
// round.
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{CudaStream, sys};

const N: usize = 1024;
const BYTES: usize = N * 4;
const ROUNDS: usize = 8;

fn fires_malloc_sync_never_freed() -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()?;
    Ok(())
}

fn fires_lost_on_question_mark_return() -> Result<(), DriverError> {
    let host = [1.0f32; N];
    let d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    // The copy's `?` returns with `d` still allocated.
    unsafe { result::memcpy_htod_sync(d, &host) }?;
    unsafe { result::free_sync(d) }
}

fn fires_second_malloc_over_the_first() -> Result<(), DriverError> {
    let mut d = unsafe { result::malloc_sync(BYTES) }?;
    //~^ device_memory_leak
    unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result()?;
    // Grown without freeing the first buffer.
    d = unsafe { result::malloc_sync(2 * BYTES) }?;
    unsafe { result::free_sync(d) }
}

fn fires_malloc_each_round() -> Result<(), DriverError> {
    for _ in 0..ROUNDS {
        let scratch = unsafe { result::malloc_sync(BYTES) }?;
        //~^ device_memory_leak
        let _ = unsafe { sys::cuMemsetD8_v2(scratch, 0, BYTES) };
    }
    Ok(())
}

fn fires_leaked_slice_dropped(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let p = stream.alloc_zeros::<f32>(N)?.leak();
    //~^ device_memory_leak
    // The zeroing is stream-ordered: wait for it before the synchronous memset.
    stream.synchronize()?;
    unsafe { sys::cuMemsetD8_v2(p, 0xff, BYTES) }.result()?;
    Ok(())
}

fn fires_pinned_host_never_freed() -> Result<(), DriverError> {
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    //~^ device_memory_leak
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    Ok(())
}

fn fires_pinned_lost_on_device_alloc_error() -> Result<(), DriverError> {
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    //~^ device_memory_leak
    // If the device allocation fails, the `?` returns with the pinned buffer still held.
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let r = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result();
    let freed = unsafe { result::free_sync(d) };
    unsafe { result::free_host(h) }?;
    r?;
    freed
}

fn ok_malloc_sync_freed() -> Result<(), DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let r = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result();
    unsafe { result::free_sync(d) }?;
    r
}

fn ok_freed_before_error_return() -> Result<(), DriverError> {
    let host = [1.0f32; N];
    let d = unsafe { result::malloc_sync(BYTES) }?;
    if let Err(e) = unsafe { result::memcpy_htod_sync(d, &host) } {
        unsafe { result::free_sync(d) }?;
        return Err(e);
    }
    unsafe { result::free_sync(d) }
}

fn ok_failed_allocation_returns() -> Result<(), DriverError> {
    // The error arm holds no allocation: nothing to free there.
    let d = match unsafe { result::malloc_sync(BYTES) } {
        Ok(d) => d,
        Err(e) => return Err(e),
    };
    let r = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result();
    unsafe { result::free_sync(d) }?;
    r
}

fn ok_cuda_slice_freed_on_drop(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    for _ in 0..ROUNDS {
        let slice = stream.alloc_zeros::<f32>(N)?;
        stream.synchronize()?;
        drop(slice);
    }
    Ok(())
}

fn ok_leaked_pointer_returned(stream: &Arc<CudaStream>) -> Result<sys::CUdeviceptr, DriverError> {
    // `leak()` on purpose: the caller owns the pointer now.
    let p = stream.alloc_zeros::<f32>(N)?.leak();
    Ok(p)
}

fn ok_leaked_pointer_adopted_again(stream: &Arc<CudaStream>) -> Result<(), DriverError> {
    let p = stream.alloc_zeros::<f32>(N)?.leak();
    // A `CudaSlice` owns it again and frees it on drop.
    let slice = unsafe { stream.upgrade_device_ptr::<f32>(p, N) };
    stream.synchronize()?;
    drop(slice);
    Ok(())
}

fn ok_pinned_host_freed() -> Result<(), DriverError> {
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    let staging = h as *mut f32;
    unsafe { *staging = 1.0 };
    unsafe { result::free_host(h) }
}

fn ok_freed_and_made_again_each_round() -> Result<(), DriverError> {
    for round in 1..=ROUNDS {
        let scratch = unsafe { result::malloc_sync(round * BYTES) }?;
        let r = unsafe { sys::cuMemsetD8_v2(scratch, 0, round * BYTES) }.result();
        unsafe { result::free_sync(scratch) }?;
        r?;
    }
    Ok(())
}

fn ok_malloc_sync_returned() -> Result<sys::CUdeviceptr, DriverError> {
    let d = unsafe { result::malloc_sync(BYTES) }?;
    if let Err(e) = unsafe { sys::cuMemsetD8_v2(d, 0, BYTES) }.result() {
        unsafe { result::free_sync(d) }?;
        return Err(e);
    }
    Ok(d)
}

fn main() {}
