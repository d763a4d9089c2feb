//@no-rustfix
// Work spread over a collection of streams and waited for by a loop over the collection
// (`for s in &streams { s.synchronize()? }`). The analysis holds the streams of a collection as
// one: the loop waits for each, and the path that skips the loop is the one where the
// collection, and the work on it, was empty. A read before that loop, or work on a stream that
// is not in the collection, is still reported.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};
use cudarc::driver::sys::{self as cu, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaStream, DriverError};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

unsafe fn stream() -> CUstream {
    let mut s: CUstream = null_mut();
    unsafe { cu::cuStreamCreate(&mut s, 1) };
    s
}

unsafe fn pinned() -> *mut c_void {
    let mut h: *mut c_void = null_mut();
    unsafe { cu::cuMemAllocHost_v2(&mut h, BYTES) };
    h
}

unsafe fn buffer() -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { cu::cuMemAlloc_v2(&mut d, BYTES) };
    d
}

fn fires_read_before_the_loop_that_waits(streams: &[CUstream]) -> f32 {
    unsafe {
        let (h, d) = (pinned(), buffer());
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, streams[0]);
        let first = *(h as *const f32);
        //~^ missing_sync
        for s in streams {
            cu::cuStreamSynchronize(*s);
        }
        first
    }
}

fn fires_read_inside_the_loop_before_its_wait(streams: &[CUstream]) -> f32 {
    unsafe {
        let (h, d) = (pinned(), buffer());
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, streams[0]);
        let mut total = 0.0;
        for s in streams {
            total += *(h as *const f32);
            //~^ missing_sync
            cu::cuStreamSynchronize(*s);
        }
        total
    }
}

fn fires_work_on_a_stream_outside_the_collection() -> f32 {
    unsafe {
        let own = stream();
        let workers: Vec<CUstream> = (0..4).map(|_| stream()).collect();
        let (h, d) = (pinned(), buffer());
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, own);
        for s in &workers {
            cu::cuStreamSynchronize(*s);
        }
        *(h as *const f32)
        //~^ missing_sync
    }
}

fn fires_runtime_layer_read_before_the_loop(ctx: &Context, streams: &[Stream], dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { streams[0].copy_dtoh_async(&mut host, dev)? };
    let first = host[0];
    //~^ missing_sync
    for s in streams {
        s.synchronize()?;
    }
    Ok(first)
}

fn ok_every_stream_of_a_slice_waited_for_in_a_loop(streams: &[CUstream]) -> f32 {
    unsafe {
        let (h, d) = (pinned(), buffer());
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, streams[0]);
        for s in streams {
            cu::cuStreamSynchronize(*s);
        }
        *(h as *const f32)
    }
}

fn ok_streams_made_by_map_each_copy_waited_for() -> f32 {
    unsafe {
        let streams: Vec<CUstream> = (0..4).map(|_| stream()).collect();
        let (h, d) = (pinned(), buffer());
        for (i, s) in streams.iter().enumerate() {
            let part = (h as *mut f32).add(i * N / 4);
            cu::cuMemcpyDtoHAsync_v2(part.cast(), d + (i * BYTES / 4) as u64, BYTES / 4, *s);
        }
        for s in &streams {
            cu::cuStreamSynchronize(*s);
        }
        *(h as *const f32)
    }
}

fn ok_streams_pushed_in_a_loop_waited_for_in_a_loop() -> f32 {
    unsafe {
        let mut streams = Vec::new();
        for _ in 0..4 {
            streams.push(stream());
        }
        let (h, d) = (pinned(), buffer());
        cu::cuMemcpyDtoHAsync_v2(h, d, BYTES, streams[1]);
        for s in streams.iter() {
            cu::cuStreamSynchronize(*s);
        }
        *(h as *const f32)
    }
}

fn ok_cudarc_streams_waited_for_in_a_loop(ctx: &Arc<CudaContext>) -> Result<f32, DriverError> {
    let streams: Vec<Arc<CudaStream>> = (0..4).map(|_| ctx.new_stream()).collect::<Result<_, _>>()?;
    let dev = streams[0].alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    streams[0].memcpy_dtoh(&dev, &mut host)?;
    for s in &streams {
        s.synchronize()?;
    }
    let first = host.as_slice()?[0];
    Ok(first)
}

fn ok_runtime_layer_streams_waited_for_in_a_loop(ctx: &Context, streams: &[Stream], dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    unsafe { streams[0].copy_dtoh_async(&mut host, dev)? };
    for s in streams {
        s.synchronize()?;
    }
    Ok(host[0])
}

fn main() {}
