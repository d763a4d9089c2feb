//@no-rustfix
// The fix for the runtime layer is checked in fixes.rs; the raw ones have no machine-applicable fix.
// Pinned staging buffers handed out again by a pool: a buffer goes back to the pool (and the
// next job fills it) while an asynchronous copy still reads it, on an early-return path, or after
// waiting on the wrong stream; the element a pool's `Vec` gives back is the buffer pushed into it
// (the `Vec` is pageable, its pinned buffers are not).
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak, cuda_lint::uninitialized_device_read))] // other lints' subject: the test code leaks, or reads memory it never wrote
use std::ffi::c_void;
use std::ptr::null_mut;

use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind, cudaStream_t};

const N: usize = 1 << 20;
const BYTES: usize = N * 4;

fn check(e: cudaError_t) -> Result<(), String> {
    if e == cudaError_t::cudaSuccess { Ok(()) } else { Err(format!("{e:?}")) }
}

unsafe fn stream() -> cudaStream_t {
    let mut s: cudaStream_t = null_mut();
    unsafe { sys::cudaStreamCreateWithFlags(&mut s, 1) };
    s
}

unsafe fn device() -> *mut c_void {
    let mut d: *mut c_void = null_mut();
    unsafe { sys::cudaMalloc(&mut d, BYTES) };
    d
}

/// Pinned buffers for uploads, handed out again and again.
struct StagingPool {
    free: Vec<*mut f32>,
}

impl StagingPool {
    fn take(&mut self) -> *mut f32 {
        if let Some(buf) = self.free.pop() {
            return buf;
        }
        let mut h: *mut c_void = null_mut();
        unsafe { sys::cudaMallocHost(&mut h, BYTES) };
        h as *mut f32
    }

    fn give_back(&mut self, buf: *mut f32) {
        self.free.push(buf);
    }
}

fn fill(buf: *mut f32, value: f32) {
    unsafe { std::slice::from_raw_parts_mut(buf, N).fill(value) };
}

fn fires_returned_to_the_pool_on_an_early_return(
    pool: &mut StagingPool,
    validate: impl Fn() -> Result<(), String>,
) -> Result<(), String> {
    unsafe {
        let s = stream();
        let d = device();
        let staging = pool.take();
        fill(staging, 1.0);
        check(sys::cudaMemcpyAsync(d, staging as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s))?;
        if let Err(e) = validate() {
            pool.give_back(staging);
            // The next job takes the same buffer while the upload still reads it.
            let next = pool.take();
            fill(next, 2.0);
            //~^ missing_sync
            return Err(e);
        }
        check(sys::cudaStreamSynchronize(s))?;
        pool.give_back(staging);
        Ok(())
    }
}

fn fires_reused_after_waiting_on_the_wrong_stream(pool: &mut StagingPool) -> Result<(), String> {
    unsafe {
        let upload = stream();
        let compute = stream();
        let d = device();
        let staging = pool.take();
        fill(staging, 1.0);
        check(sys::cudaMemcpyAsync(d, staging as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, upload))?;
        check(sys::cudaStreamSynchronize(compute))?;
        pool.give_back(staging);
        let next = pool.take();
        fill(next, 2.0);
        //~^ missing_sync
        check(sys::cudaStreamSynchronize(upload))?;
        Ok(())
    }
}

fn fires_read_back_into_a_pooled_buffer_read_before_the_wait(pool: &mut StagingPool) -> Result<f32, String> {
    unsafe {
        let s = stream();
        let d = device();
        let staging = pool.take();
        check(sys::cudaMemcpyAsync(staging as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, s))?;
        let first = *staging;
        //~^ missing_sync
        check(sys::cudaStreamSynchronize(s))?;
        pool.give_back(staging);
        Ok(first)
    }
}

fn ok_early_return_waits_before_giving_the_buffer_back(
    pool: &mut StagingPool,
    validate: impl Fn() -> Result<(), String>,
) -> Result<(), String> {
    unsafe {
        let s = stream();
        let d = device();
        let staging = pool.take();
        fill(staging, 1.0);
        check(sys::cudaMemcpyAsync(d, staging as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s))?;
        if let Err(e) = validate() {
            check(sys::cudaStreamSynchronize(s))?;
            pool.give_back(staging);
            let next = pool.take();
            fill(next, 2.0);
            return Err(e);
        }
        check(sys::cudaStreamSynchronize(s))?;
        pool.give_back(staging);
        Ok(())
    }
}

fn ok_early_return_before_the_copy(pool: &mut StagingPool, validate: impl Fn() -> Result<(), String>) -> Result<(), String> {
    unsafe {
        let s = stream();
        let d = device();
        let staging = pool.take();
        fill(staging, 1.0);
        if let Err(e) = validate() {
            pool.give_back(staging);
            let next = pool.take();
            fill(next, 2.0);
            return Err(e);
        }
        check(sys::cudaMemcpyAsync(d, staging as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, s))?;
        check(sys::cudaStreamSynchronize(s))?;
        pool.give_back(staging);
        Ok(())
    }
}

fn ok_reused_after_waiting_on_the_upload_stream(pool: &mut StagingPool) -> Result<(), String> {
    unsafe {
        let upload = stream();
        let compute = stream();
        let d = device();
        let staging = pool.take();
        fill(staging, 1.0);
        check(sys::cudaMemcpyAsync(d, staging as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice, upload))?;
        check(sys::cudaStreamSynchronize(compute))?;
        check(sys::cudaStreamSynchronize(upload))?;
        pool.give_back(staging);
        let next = pool.take();
        fill(next, 2.0);
        Ok(())
    }
}

fn ok_pool_handed_in_is_not_known_to_be_in_use(pool: &mut StagingPool) {
    // What the caller put in the pool is not known here: nothing in flight uses it.
    let next = pool.take();
    fill(next, 2.0);
}

/// The runtime layer's pinned buffers in a pool of owned buffers.
fn fires_runtime_layer_pool_buffer_refilled_after_the_wrong_wait(
    ctx: &Context,
    dev: &mut DeviceBuffer<f32>,
    pool: &mut Vec<PinnedBuffer<f32>>,
) -> Result<(), Error> {
    // Two streams of their own: waiting for one does not wait for the other.
    let (upload, compute) = (ctx.new_stream()?, ctx.new_stream()?);
    let staging = match pool.pop() {
        Some(buf) => buf,
        None => ctx.alloc_pinned::<f32>(dev.len())?,
    };
    unsafe { upload.copy_htod_async(dev, &staging)? };
    compute.synchronize()?;
    pool.push(staging);
    let mut next = pool.pop().unwrap();
    next[0] = 2.0;
    //~^ missing_sync
    upload.synchronize()?;
    Ok(())
}

fn ok_runtime_layer_pool_buffer_refilled_after_the_upload(
    ctx: &Context,
    upload: &Stream,
    dev: &mut DeviceBuffer<f32>,
    pool: &mut Vec<PinnedBuffer<f32>>,
) -> Result<(), Error> {
    let staging = match pool.pop() {
        Some(buf) => buf,
        None => ctx.alloc_pinned::<f32>(dev.len())?,
    };
    unsafe { upload.copy_htod_async(dev, &staging)? };
    upload.synchronize()?;
    pool.push(staging);
    let mut next = pool.pop().unwrap();
    next[0] = 2.0;
    Ok(())
}

/// A staging slot: a pinned buffer and what it is for.
struct Slot {
    buf: PinnedBuffer<f32>,
    rows: usize,
}

/// Each turn takes another slot from a pool it was handed (one this body did not fill): the
/// slot filled is never the one whose upload is still running.
fn ok_each_chunk_takes_another_slot_from_the_pool(
    free: &mut Vec<Slot>,
    busy: &mut Vec<Slot>,
    stream: &Stream,
    dev: &mut DeviceBuffer<f32>,
    rows: &[f32],
) -> Result<(), Error> {
    for chunk in rows.chunks(1024) {
        let Some(mut slot) = free.pop() else { break };
        slot.buf[..chunk.len()].copy_from_slice(chunk);
        slot.rows = chunk.len();
        unsafe { stream.copy_htod_async(dev, &slot.buf)? };
        busy.push(slot);
    }
    Ok(())
}

/// ... while one slot taken once and refilled each turn is still being uploaded from.
fn fires_one_slot_refilled_each_chunk(
    free: &mut Vec<Slot>,
    stream: &Stream,
    dev: &mut DeviceBuffer<f32>,
    rows: &[f32],
) -> Result<(), Error> {
    let Some(mut slot) = free.pop() else { return Ok(()) };
    for chunk in rows.chunks(1024) {
        slot.buf[..chunk.len()].copy_from_slice(chunk); //~ missing_sync
        unsafe { stream.copy_htod_async(dev, &slot.buf)? };
    }
    stream.synchronize()?;
    free.push(slot);
    Ok(())
}

/// ... and so is a slot given back to the pool and taken again: the pool gives back what was
/// pushed.
fn fires_slot_given_back_and_taken_again(
    free: &mut Vec<Slot>,
    stream: &Stream,
    dev: &mut DeviceBuffer<f32>,
    rows: &[f32],
) -> Result<(), Error> {
    for chunk in rows.chunks(1024) {
        let Some(mut slot) = free.pop() else { break };
        slot.buf[..chunk.len()].copy_from_slice(chunk); //~ missing_sync
        unsafe { stream.copy_htod_async(dev, &slot.buf)? };
        free.push(slot);
    }
    stream.synchronize()?;
    Ok(())
}

fn main() {}
