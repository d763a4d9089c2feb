// This project's runtime layer: `alloc_pinned_with_flags` with `write_combined: true` (seed
// 000's `cudaHostAllocWriteCombined` buffer, into which device data is copied back); its
// `alloc_pinned` is not write-combined.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedFlags, Stream};

const WC: PinnedFlags = PinnedFlags {
    portable: false,
    device_mapped: false,
    write_combined: true,
};

fn fires_persistent_buffer_read_back(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let flags = PinnedFlags {
        write_combined: true,
        ..PinnedFlags::default()
    };
    let mut persistent = ctx.alloc_pinned_with_flags::<f32>(dev.len(), flags)?;
    s.copy_dtoh(&mut persistent, dev)?;
    Ok(persistent.iter().sum())
    //~^ write_combined_host_read
}

fn fires_flags_from_a_constant(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned_with_flags::<f32>(dev.len(), WC)?;
    s.copy_dtoh(&mut host, dev)?;
    Ok(host[0])
    //~^ write_combined_host_read
}

fn fires_checked_after_the_readback(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<bool, Error> {
    let mut host = ctx.alloc_pinned_with_flags::<f32>(
        dev.len(),
        PinnedFlags {
            portable: true,
            device_mapped: false,
            write_combined: true,
        },
    )?;
    s.copy_dtoh(&mut host, dev)?;
    Ok(host.iter().all(|v| v.is_finite()))
    //~^ write_combined_host_read
}

fn fires_read_in_a_loop(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned_with_flags::<f32>(dev.len(), WC)?;
    s.copy_dtoh(&mut host, dev)?;
    let mut max = f32::MIN;
    for i in 0..host.len() {
        max = max.max(host[i]);
        //~^ write_combined_host_read
    }
    Ok(max)
}

fn ok_alloc_pinned_readback(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned::<f32>(dev.len())?;
    s.copy_dtoh(&mut host, dev)?;
    Ok(host.iter().sum())
}

fn ok_write_combined_upload(ctx: &Context, s: &Stream) -> Result<DeviceBuffer<f32>, Error> {
    let mut staging = ctx.alloc_pinned_with_flags::<f32>(1 << 20, WC)?;
    staging.fill(1.0);
    let mut dev = ctx.alloc::<f32>(1 << 20)?;
    s.copy_htod(&mut dev, &staging)?;
    Ok(dev)
}

fn ok_portable_not_write_combined(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>) -> Result<f32, Error> {
    let flags = PinnedFlags {
        portable: true,
        ..PinnedFlags::default()
    };
    let mut host = ctx.alloc_pinned_with_flags::<f32>(dev.len(), flags)?;
    s.copy_dtoh(&mut host, dev)?;
    Ok(host[0])
}

fn ok_flags_from_the_caller(ctx: &Context, s: &Stream, dev: &DeviceBuffer<f32>, flags: PinnedFlags) -> Result<f32, Error> {
    let mut host = ctx.alloc_pinned_with_flags::<f32>(dev.len(), flags)?;
    s.copy_dtoh(&mut host, dev)?;
    Ok(host[0])
}

fn ok_write_combined_written_only(ctx: &Context) -> Result<(), Error> {
    let mut host = ctx.alloc_pinned_with_flags::<f32>(1024, WC)?;
    host[0] = 1.0;
    host[1023] = 2.0;
    Ok(())
}

fn main() {}
