// Copies whose size is known: under 64 KiB a copy is latency-bound, and pinned memory does not
// make it measurably faster (lint/benches/pinned-threshold/): a scalar, a small array or a
// small struct on the stack is not reported. At the threshold, past it, or of a size the code
// does not show, it is.
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaSlice, CudaStream, DriverError};
use cuda_lint_runtime::{Context, Error, Stream};

#[repr(C)]
#[derive(Clone, Copy, Default)]
struct Params {
    scale: f32,
    bias: f32,
    n: u32,
    flags: u32,
}

fn ok_scalar_counter_read_back(stream: CUstream, count: CUdeviceptr) -> u32 {
    let mut host = 0u32;
    unsafe {
        sys::cuMemcpyDtoHAsync_v2((&mut host as *mut u32).cast::<c_void>(), count, 4, stream);
        sys::cuStreamSynchronize(stream);
    }
    host
}

fn ok_small_struct_uploaded_every_frame(stream: CUstream, dev: CUdeviceptr, p: Params) {
    let params = Params { n: p.n + 1, ..p };
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dev, (&params as *const Params).cast::<c_void>(), 16, stream);
    }
}

fn ok_one_element_array(stream: &Arc<CudaStream>, dev: &mut CudaSlice<u32>, threshold: u32) -> Result<(), DriverError> {
    stream.memcpy_htod(&[threshold], dev)
}

fn ok_sixteen_kib_table(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let table = [0.5f32; 4096];
    let mut dev = ctx.alloc::<f32>(4096)?;
    unsafe { s.copy_htod_async(&mut dev, &table)? };
    s.synchronize()
}

fn ok_small_readback_into_an_array(ctx: &Context, s: &Stream) -> Result<u32, Error> {
    let dev = ctx.alloc_zeroed::<u32>(256)?;
    let mut hist = [0u32; 256];
    unsafe { s.copy_dtoh_async(&mut hist, &dev)? };
    s.synchronize()?;
    Ok(hist.iter().sum())
}

fn fires_at_the_threshold(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let block = [0u8; 64 * 1024];
    let mut dev = ctx.alloc::<u8>(64 * 1024)?;
    unsafe { s.copy_htod_async(&mut dev, &block)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_one_mib_array(stream: &Arc<CudaStream>, dev: &mut CudaSlice<f32>) -> Result<(), DriverError> {
    let frame = [0.0f32; 1 << 18];
    stream.memcpy_htod(&frame, dev)
    //~^ pageable_async_copy
}

fn fires_size_known_only_at_run_time(ctx: &Context, s: &Stream, n: usize) -> Result<(), Error> {
    // A few bytes or gigabytes: the code does not say, so the copy is reported.
    let host = vec![1u32; n];
    let mut dev = ctx.alloc::<u32>(n)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_constant_byte_count_from_a_vec(stream: CUstream, dev: CUdeviceptr) {
    // The C API says how many bytes it copies: four, whatever the `Vec` holds.
    let host: Vec<u32> = vec![7; 1 << 20];
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dev, host.as_ptr().cast::<c_void>(), 4, stream);
    }
}

fn fires_constant_byte_count_past_the_threshold(stream: CUstream, dev: CUdeviceptr) {
    let host: Vec<u32> = vec![7; 1 << 20];
    unsafe {
        sys::cuMemcpyHtoDAsync_v2(dev, host.as_ptr().cast::<c_void>(), 4 << 20, stream);
        //~^ pageable_async_copy
    }
}

/// A lookup table in a `static`: its size is its type's.
static GAMMA: [u16; 256] = [0; 256];
static VOLUME: [u8; 1 << 20] = [0; 1 << 20];

fn ok_small_static_table_uploaded(stream: &Arc<CudaStream>) -> Result<CudaSlice<u16>, DriverError> {
    stream.clone_htod(&GAMMA)
}

fn fires_large_static_volume_uploaded(stream: &Arc<CudaStream>) -> Result<CudaSlice<u8>, DriverError> {
    stream.clone_htod(&VOLUME) //~ pageable_async_copy
}

fn main() {}
