//! case: runtime layer: resetting a DeviceBuffer by writing through its raw device address on the host (misuse), beside resetting a ManagedBuffer through its host view after the context is synchronized
//! expect: host_deref_device_ptr=1
use cuda_lint_runtime::{Context, DeviceBuffer, ManagedBuffer, Result};

pub fn reset_device(buf: &mut DeviceBuffer<f32>) {
    let p = buf.device_ptr().as_raw() as *mut f32;
    for i in 0..buf.len() {
        unsafe { p.add(i).write(0.0) }; // EXPECT: host_deref_device_ptr
    }
}

pub fn reset_managed(ctx: &Context, buf: &mut ManagedBuffer<f32>) -> Result<()> {
    ctx.synchronize()?;
    buf.iter_mut().for_each(|v| *v = 0.0);
    Ok(())
}

pub fn run(ctx: &Context, n: usize) -> Result<()> {
    let mut dev = ctx.alloc::<f32>(n)?;
    let mut managed = ctx.alloc_managed::<f32>(n)?;
    reset_device(&mut dev);
    reset_managed(ctx, &mut managed)
}
