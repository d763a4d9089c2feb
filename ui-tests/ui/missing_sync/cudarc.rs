//@no-rustfix
// Some findings here have no machine-applicable fix: the fixes are checked in fixes.rs.
// cudarc's safe API: it records events and waits for them only while its context manages
// stream synchronization (more than one stream, event tracking on). With one stream, pinned
// and unified host views wait for nothing; escape hatches enqueue work no event covers.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
use std::sync::Arc;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig, PinnedHostSlice, PushKernelArg,
};

const N: usize = 1 << 20;

fn fires_pinned_read_with_one_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_pinned_refilled_while_the_upload_reads_it() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_htod(&host, &mut dev)?;
    host.as_mut_slice()?.fill(2.0);
    //~^ missing_sync
    stream.memcpy_htod(&host, &mut dev)?;
    stream.synchronize()
}

fn fires_unified_filled_by_a_copy_with_one_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    stream.memcpy_dtod(&dev, &mut unified)?;
    let first = unified.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_synchronized_on_one_branch_only(check: bool) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    if check {
        stream.synchronize()?;
    }
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_guard_dropped_before_the_raw_memset() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let mut dev = writer.alloc_zeros::<u8>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<u8>(N)? };
    // `_` drops the guard at once: it records the write event before the memset is enqueued.
    let (ptr, _) = dev.device_ptr_mut(&writer);
    unsafe { result::memset_d8_async(ptr, 0xff, N, writer.cu_stream())? };
    reader.memcpy_dtoh(&dev, &mut host)?;
    //~^ missing_sync
    ctx.synchronize()
}

fn fires_two_streams_with_event_tracking_disabled() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let upload = ctx.new_stream()?;
    let download = ctx.new_stream()?;
    let staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut result = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(&staging, &mut dev)?;
    download.memcpy_dtoh(&dev, &mut result)?;
    //~^ missing_sync
    ctx.synchronize()
}

fn fires_slice_dropped_while_raw_work_on_another_stream_uses_it() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let dev = owner.alloc_zeros::<u8>(N)?;
    {
        let (ptr, _) = dev.device_ptr(&worker);
        unsafe { result::memset_d8_async(ptr, 0, N, worker.cu_stream())? };
    }
    drop(dev);
    //~^ missing_sync
    ctx.synchronize()
}

fn fires_raw_copy_into_pinned_then_as_slice() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let (src, _record) = dev.device_ptr(&stream);
    unsafe { result::memcpy_dtoh_async(host.as_mut_slice()?, src, stream.cu_stream())? };
    // `as_slice` waits for the pinned buffer's event, which the raw copy never recorded.
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

struct Readback {
    stream: Arc<CudaStream>,
    dev: CudaSlice<f32>,
    host: PinnedHostSlice<f32>,
}

impl Readback {
    fn new(ctx: &Arc<CudaContext>) -> Result<Self, DriverError> {
        let stream = ctx.default_stream();
        let dev = stream.alloc_zeros::<f32>(N)?;
        let host = unsafe { ctx.alloc_pinned::<f32>(N)? };
        Ok(Readback { stream, dev, host })
    }

    fn start(&mut self) -> Result<(), DriverError> {
        self.stream.memcpy_dtoh(&self.dev, &mut self.host)
    }

    fn wait(&self) -> Result<(), DriverError> {
        self.stream.synchronize()
    }
}

fn fires_struct_read_before_wait() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let mut readback = Readback::new(&ctx)?;
    readback.start()?;
    let first = readback.host.as_slice()?[0];
    //~^ missing_sync
    readback.wait()?;
    Ok(first)
}

fn fires_double_buffer_reads_the_one_in_flight() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut front = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut back = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut total = 0.0;
    for _ in 0..4 {
        stream.memcpy_dtoh(&dev, &mut back)?;
        total += front.as_slice()?[0];
        //~^ missing_sync
        std::mem::swap(&mut front, &mut back);
    }
    stream.synchronize()?;
    Ok(total)
}

fn ok_pinned_read_with_two_streams() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    // The copy recorded the buffer's event; `as_slice` waits for it.
    Ok(host.as_slice()?[0])
}

fn ok_synchronized_before_the_read() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    stream.synchronize()?;
    Ok(host.as_slice()?[0])
}

fn ok_event_synchronized_before_the_read() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let done = stream.record_event(None)?;
    done.synchronize()?;
    Ok(host.as_slice()?[0])
}

fn ok_context_synchronized_on_every_branch(fast: bool) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    if fast {
        stream.synchronize()?;
    } else {
        ctx.synchronize()?;
    }
    Ok(host.as_slice()?[0])
}

fn ok_unified_after_a_launch(module_fn: &cudarc::driver::CudaFunction) -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let mut unified = unsafe { ctx.alloc_unified::<f32>(N, true)? };
    let n = N as u32;
    let mut launch = stream.launch_builder(module_fn);
    launch.arg(&mut unified).arg(&n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n))? };
    // Launches record a unified slice's event whatever the context's state.
    Ok(unified.as_slice()?[0])
}

fn ok_two_streams_ordered_by_cudarc() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let upload = ctx.new_stream()?;
    let download = ctx.new_stream()?;
    let staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut result = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(&staging, &mut dev)?;
    download.memcpy_dtoh(&dev, &mut result)?;
    Ok(result.as_slice()?[0])
}

fn ok_stream_from_elsewhere(stream: &Arc<CudaStream>, dev: &CudaSlice<f32>, host: &mut PinnedHostSlice<f32>) -> Result<f32, DriverError> {
    // The context's state is not known here: cudarc may well be recording events.
    stream.memcpy_dtoh(dev, host)?;
    Ok(host.as_slice()?[0])
}

fn ok_guard_kept_until_the_raw_memset_is_enqueued() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let writer = ctx.new_stream()?;
    let reader = ctx.new_stream()?;
    let mut dev = writer.alloc_zeros::<u8>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<u8>(N)? };
    let (ptr, record) = dev.device_ptr_mut(&writer);
    unsafe { result::memset_d8_async(ptr, 0xff, N, writer.cu_stream())? };
    drop(record);
    reader.memcpy_dtoh(&dev, &mut host)?;
    ctx.synchronize()
}

fn ok_tracking_disabled_streams_joined() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let upload = ctx.new_stream()?;
    let download = ctx.new_stream()?;
    let staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut result = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(&staging, &mut dev)?;
    download.join(&upload)?;
    download.memcpy_dtoh(&dev, &mut result)?;
    ctx.synchronize()
}

fn ok_forked_stream_waits_for_its_parent() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    unsafe { ctx.disable_event_tracking() };
    let upload = ctx.new_stream()?;
    let staging = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut result = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(&staging, &mut dev)?;
    let download = upload.fork()?;
    download.memcpy_dtoh(&dev, &mut result)?;
    ctx.synchronize()
}

fn ok_slice_dropped_after_raw_work_on_its_own_stream() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let owner = ctx.new_stream()?;
    let dev = owner.alloc_zeros::<u8>(N)?;
    {
        let (ptr, _) = dev.device_ptr(&owner);
        unsafe { result::memset_d8_async(ptr, 0, N, owner.cu_stream())? };
    }
    // Freed in the order of its own stream, after the memset.
    drop(dev);
    Ok(())
}

fn ok_struct_waits_before_reading() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let mut readback = Readback::new(&ctx)?;
    readback.start()?;
    readback.wait()?;
    Ok(readback.host.as_slice()?[0])
}

fn ok_double_buffer_synchronized_before_the_swap() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut front = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut back = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut total = 0.0;
    for _ in 0..4 {
        stream.memcpy_dtoh(&dev, &mut back)?;
        total += front.as_slice()?[0];
        stream.synchronize()?;
        std::mem::swap(&mut front, &mut back);
    }
    Ok(total)
}

fn ok_device_to_device_on_one_stream() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let src = stream.alloc_zeros::<f32>(N)?;
    let mut dst = stream.alloc_zeros::<f32>(N)?;
    stream.memcpy_dtod(&src, &mut dst)?;
    drop(src);
    let copy = stream.clone_dtod(&dst)?;
    drop(dst);
    drop(copy);
    Ok(())
}

// lintcheck FP-5 (cudarc's tests): a copy into pageable memory returns once it is done, and
// the stream's earlier work with it.
#[allow(cuda_lint::pageable_async_copy)]
fn ok_pinned_read_after_a_pageable_readback_on_the_same_stream() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let check: Vec<f32> = stream.clone_dtoh(&dev.slice(0..4))?;
    Ok(host.as_slice()?[0] + check[0])
}

// lintcheck FP-6 (cudarc's example 13): a copy between two contexts waits for the source's
// stream (cudarc records an event there and makes the destination stream wait on it).
fn ok_copy_between_devices_waits_for_the_source_stream() -> Result<(), DriverError> {
    let ctx0 = CudaContext::new(0)?;
    let ctx1 = CudaContext::new(1)?;
    let s0 = ctx0.default_stream();
    let s1 = ctx1.default_stream();
    let a = s0.alloc_zeros::<f32>(N)?;
    let _b = s1.clone_dtod(&a)?;
    s1.synchronize()
}

// lintcheck FP-7 (cudarc's `peer_transfer_self`): two handles of device 0's primary context
// share its null stream.
fn ok_two_handles_of_one_context_share_the_null_stream() -> Result<(), DriverError> {
    let ctx1 = CudaContext::new(0)?;
    let ctx2 = CudaContext::new(0)?;
    let s1 = ctx1.default_stream();
    let s2 = ctx2.default_stream();
    let a = s1.alloc_zeros::<f32>(N)?;
    let _b = s2.clone_dtod(&a)?;
    s2.synchronize()
}

// Moving the buffer into a map moves its handle: nothing reads the memory the copy writes.
fn ok_pinned_slice_moved_into_a_map_while_the_copy_runs(
    spilled: &mut std::collections::HashMap<u64, PinnedHostSlice<f32>>,
) -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    spilled.insert(7, host);
    Ok(())
}

fn main() {}
