// Code that does not compile: rustc's errors, and nothing else from cuda-lint.
use cuda_lint_runtime::{Context, Error};

fn upload(ctx: &Context) -> Result<(), Error> {
    let s = ctx.new_stream()?;
    let host = vec![1.0f32; 16];
    let mut dev = ctx.alloc::<f32>(16)?;
    let wrong: u32 = host;
    //~^ ERROR: mismatched types
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    s.synchronize()
}

fn main() {}
