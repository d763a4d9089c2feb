// copy_out_of_bounds through cudarc: the safe API (`alloc_zeros`, `alloc`, `memcpy_dtod`, whose
// copy moves `src.len()` elements) and the `cudarc::driver::result` layer (`malloc_sync`,
// `memcpy_htod_sync`, `memcpy_dtoh_sync`, `memcpy_dtod_sync`, `memset_d8_sync`), with host sides
// of known length (`vec![x; N]`, `[T; N]`). Fires where the byte count is known and larger than
// the destination or the source; near misses copy exactly or less, or with a count or pointer
// the analysis cannot know.
// Host<->device copies go through the synchronous `result::*_sync` functions, so that no
// asynchronous copy from pageable memory is involved.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaContext, result};
use std::mem::size_of;

const N: usize = 256;
const BYTES: usize = N * size_of::<f32>();

fn fires_dtod_source_longer_than_destination() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<f32>(2 * N)?;
    let mut dst = stream.alloc_zeros::<f32>(N)?;
    // memcpy_dtod moves src.len() = 2 * N elements into a slice of N.
    stream.memcpy_dtod(&src, &mut dst)?;
    //~^ copy_out_of_bounds
    stream.synchronize()?;
    Ok(())
}

fn fires_dtod_from_unsafe_alloc_into_smaller() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut staging = unsafe { stream.alloc::<u32>(4096) }?;
    stream.memset_zeros(&mut staging)?;
    let mut tile = stream.alloc_zeros::<u32>(1024)?;
    stream.memcpy_dtod(&staging, &mut tile)?;
    //~^ copy_out_of_bounds
    stream.synchronize()?;
    Ok(())
}

fn fires_result_htod_sync_vec_twice_the_buffer() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![1.0f32; 2 * N];
    let dptr = unsafe { result::malloc_sync(BYTES) }?;
    // The copy moves 2 * N floats into a buffer of N.
    let _ = unsafe { result::memcpy_htod_sync(dptr, &host) };
    //~^ copy_out_of_bounds
    let _ = unsafe { result::free_sync(dptr) };
    Ok(())
}

fn fires_result_dtoh_sync_array_larger_than_source() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(BYTES) }?;
    let _ = unsafe { result::memset_d8_sync(dptr, 0, BYTES) };
    let mut host = [0.0f32; 2 * N];
    // Reads 2 * N floats out of a buffer that holds N.
    let _ = unsafe { result::memcpy_dtoh_sync(&mut host, dptr) };
    //~^ copy_out_of_bounds
    let _ = unsafe { result::free_sync(dptr) };
    println!("{}", host[0]);
    Ok(())
}

fn fires_result_memset_d8_past_the_end() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(1024) }?;
    let _ = unsafe { result::memset_d8_sync(dptr, 0xff, 2048) };
    //~^ copy_out_of_bounds
    let _ = unsafe { result::free_sync(dptr) };
    Ok(())
}

fn fires_result_dtod_sync_count_of_twice() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let src = unsafe { result::malloc_sync(BYTES) }?;
    let dst = match unsafe { result::malloc_sync(BYTES) } {
        Ok(d) => d,
        Err(e) => {
            let _ = unsafe { result::free_sync(src) };
            return Err(e.into());
        }
    };
    let _ = unsafe { result::memset_d8_sync(src, 0, BYTES) };
    let _ = unsafe { result::memcpy_dtod_sync(dst, src, 2 * BYTES) };
    //~^ copy_out_of_bounds
    let _ = unsafe { result::free_sync(dst) };
    let _ = unsafe { result::free_sync(src) };
    Ok(())
}

fn ok_dtod_equal_lengths() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<f32>(N)?;
    let mut dst = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    stream.synchronize()?;
    Ok(())
}

fn ok_dtod_destination_longer() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<f32>(N)?;
    let mut dst = stream.alloc_zeros::<f32>(2 * N)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    stream.synchronize()?;
    Ok(())
}

fn ok_result_htod_sync_exact_fit() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let host = vec![1.0f32; N];
    let dptr = unsafe { result::malloc_sync(N * size_of::<f32>()) }?;
    let _ = unsafe { result::memcpy_htod_sync(dptr, &host) };
    let _ = unsafe { result::free_sync(dptr) };
    Ok(())
}

fn ok_result_dtoh_sync_first_half() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(BYTES) }?;
    let _ = unsafe { result::memset_d8_sync(dptr, 0, BYTES) };
    let mut host = [0.0f32; N / 2];
    let _ = unsafe { result::memcpy_dtoh_sync(&mut host, dptr) };
    let _ = unsafe { result::free_sync(dptr) };
    println!("{}", host[0]);
    Ok(())
}

fn ok_result_memset_count_from_args() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let count: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(1024);
    let dptr = unsafe { result::malloc_sync(1024) }?;
    // The count is a runtime value: not judged.
    let _ = unsafe { result::memset_d8_sync(dptr, 0, count) };
    let _ = unsafe { result::free_sync(dptr) };
    Ok(())
}

fn ok_result_memset_size_of_array() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let dptr = unsafe { result::malloc_sync(size_of::<[f64; N]>()) }?;
    let _ = unsafe { result::memset_d8_sync(dptr, 0, N * size_of::<f64>()) };
    let _ = unsafe { result::free_sync(dptr) };
    Ok(())
}

// The destination comes from a caller no code in the crate is: its size is unknown.
fn ok_result_htod_sync_into_parameter(dst: CUdeviceptr) {
    let host = [0u8; 1 << 20];
    let _ = unsafe { result::memcpy_htod_sync(dst, &host) };
}

fn main() {}
