use cuda_lint_runtime::{Context, Error, Stream};

fn fires_vec_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 16];
    let mut dev = ctx.alloc::<f32>(16)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn ok_pinned_to_device(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(16)?;
    let mut dev = ctx.alloc::<f32>(16)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    s.synchronize()
}

fn main() {}
