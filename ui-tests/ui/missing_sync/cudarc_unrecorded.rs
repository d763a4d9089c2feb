//@no-rustfix
// cudarc 0.19.10 records events only on its own types. A copy given a plain slice of pinned
// memory (`pinned.as_slice()?`, `pinned.as_mut_slice()?`) records none on the host side, so the
// pinned slice's accessors do not wait for it; a launch given a raw device pointer
// (`device_ptr(&stream).0`) records none on that memory, so its drop and other streams' work do
// not wait for the kernel (vortex PRs #6673, #7980). Two streams: the context tracks events.
#![cfg_attr(cuda_lint, allow(cuda_lint::write_combined_host_read))] // readbacks into cudarc's `alloc_pinned`: another lint's subject
use std::sync::Arc;

use cudarc::driver::result::DriverError;
use cudarc::driver::{CudaContext, CudaFunction, DevicePtr, LaunchConfig, PushKernelArg};

const N: usize = 1 << 20;

fn fires_refilled_after_a_copy_from_its_plain_slice() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let upload = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(host.as_slice()?, &mut dev)?;
    host.as_mut_slice()?.fill(2.0);
    //~^ missing_sync
    upload.synchronize()
}

fn fires_read_after_a_readback_into_its_plain_slice() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, host.as_mut_slice()?)?;
    let first = host.as_slice()?[0];
    //~^ missing_sync
    Ok(first)
}

fn fires_dropped_while_a_raw_pointer_launch_reads_it(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    let ptr = buf.device_ptr(&owner).0;
    let mut launch = worker.launch_builder(f);
    launch.arg(&ptr);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? }; //~ missing_sync
    drop(buf);
    //~^ missing_sync
    worker.synchronize()
}

// The kernel's source is not visible: what it writes is not seen, so this is
// `unverified`'s (allow by default, tests in ui/unverified/), not this lint's.
fn unseen_read_back_on_its_own_stream_while_a_raw_pointer_kernel_writes(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let (ptr, _) = buf.device_ptr(&worker);
    let mut launch = worker.launch_builder(f);
    launch.arg(&ptr).arg(&N);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    owner.memcpy_dtoh(&buf, &mut host)?;
    worker.synchronize()?;
    owner.synchronize()
}

/// A plan struct keeps raw pointers of its buffers (vortex's dynamic dispatch, before #7980).
struct Plan {
    input: u64,
    n: usize,
}

fn fires_buffer_behind_a_plan_struct_dropped(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let input = owner.alloc_zeros::<f32>(N)?;
    let plan = Plan {
        input: input.device_ptr(&owner).0,
        n: N,
    };
    let mut launch = worker.launch_builder(f);
    launch.arg(&plan.input).arg(&plan.n);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? }; //~ missing_sync
    drop(input);
    //~^ missing_sync
    worker.synchronize()
}

fn ok_the_pinned_slice_itself_records_its_event() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let upload = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(&host, &mut dev)?;
    // `as_mut_slice` synchronizes the event the copy recorded.
    host.as_mut_slice()?.fill(2.0);
    upload.synchronize()
}

fn ok_plain_slice_copy_then_synchronize() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let upload = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    let mut dev = upload.alloc_zeros::<f32>(N)?;
    upload.memcpy_htod(host.as_slice()?, &mut dev)?;
    upload.synchronize()?;
    host.as_mut_slice()?.fill(2.0);
    Ok(())
}

fn ok_readback_into_the_pinned_slice_itself() -> Result<f32, DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let dev = stream.alloc_zeros::<f32>(N)?;
    let mut host = unsafe { ctx.alloc_pinned::<f32>(N)? };
    stream.memcpy_dtoh(&dev, &mut host)?;
    let first = host.as_slice()?[0];
    Ok(first)
}

fn ok_raw_pointer_launch_on_the_owning_stream(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let _other = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    let ptr = buf.device_ptr(&owner).0;
    let mut launch = owner.launch_builder(f);
    launch.arg(&ptr);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    // Freed in the owning stream's order: after the kernel.
    drop(buf);
    owner.synchronize()
}

fn ok_raw_pointer_launch_synchronized(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    // The memset of `alloc_zeros` done before the raw pointer goes to another stream.
    owner.synchronize()?;
    let ptr = buf.device_ptr(&owner).0;
    let mut launch = worker.launch_builder(f);
    launch.arg(&ptr);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    worker.synchronize()?;
    drop(buf);
    Ok(())
}

fn ok_guard_kept_until_after_the_launch(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    let (ptr, record) = buf.device_ptr(&worker);
    let mut launch = worker.launch_builder(f);
    launch.arg(&ptr);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    // The guard records the worker's use: the drop waits for it (vortex's fix in #7980).
    drop(record);
    drop(buf);
    worker.synchronize()
}

fn ok_owner_joins_the_worker(ctx: &Arc<CudaContext>, f: &CudaFunction) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    // The memset of `alloc_zeros` done before the raw pointer goes to another stream.
    owner.synchronize()?;
    let ptr = buf.device_ptr(&owner).0;
    let mut launch = worker.launch_builder(f);
    launch.arg(&ptr);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    owner.join(&worker)?;
    drop(buf);
    owner.synchronize()
}

fn ok_the_dropped_buffer_was_passed_as_a_slice(
    ctx: &Arc<CudaContext>,
    f: &CudaFunction,
) -> Result<(), DriverError> {
    let owner = ctx.new_stream()?;
    let worker = ctx.new_stream()?;
    let buf = owner.alloc_zeros::<f32>(N)?;
    let table = owner.alloc_zeros::<u64>(4)?;
    // The memset of `alloc_zeros` done before the raw pointer goes to another stream.
    owner.synchronize()?;
    let raw_table = table.device_ptr(&owner).0;
    let mut launch = worker.launch_builder(f);
    launch.arg(&buf).arg(&raw_table);
    unsafe { launch.launch(LaunchConfig::for_num_elems(N as u32))? };
    // `buf` recorded its read event: its drop waits for the kernel.
    drop(buf);
    worker.synchronize()?;
    drop(table);
    Ok(())
}

fn main() {}
