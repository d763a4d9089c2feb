use std::cell::RefCell;
use std::rc::Rc;
use std::sync::{Arc, Mutex};

use cuda_lint_runtime::{Context, DeviceBuffer, Error, PinnedBuffer, Stream};

trait HostSource {
    fn samples(&self) -> &[f32];
}

impl HostSource for Vec<f32> {
    fn samples(&self) -> &[f32] {
        self
    }
}

fn upload_halves(s: &Stream, devs: &mut [DeviceBuffer<f32>], host: &[f32]) -> Result<(), Error> {
    match devs {
        [] => Ok(()),
        [first, rest @ ..] => {
            let (head, tail) = host.split_at(first.len());
            unsafe { s.copy_htod_async(first, head)? };
            upload_halves(s, rest, tail)
        }
    }
}

fn fires_recursive_helper_given_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = vec![1.0f32; 512];
    let mut devs = [ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?];
    upload_halves(s, &mut devs, &host)?;
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_dyn_source_backed_by_vec(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let v = vec![1.0f32; 64];
    let src: &dyn HostSource = &v;
    let mut dev = ctx.alloc::<f32>(64)?;
    unsafe { s.copy_htod_async(&mut dev, src.samples())? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_const_generic_stack_array<const N: usize>(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let table = [0.0f32; N];
    let mut dev = ctx.alloc::<f32>(N)?;
    unsafe { s.copy_htod_async(&mut dev, &table)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_vec_behind_mutex(ctx: &Context, s: &Stream, shared: &Mutex<Vec<f32>>) -> Result<(), Error> {
    let guard = shared.lock().unwrap();
    let mut dev = ctx.alloc::<f32>(guard.len())?;
    unsafe { s.copy_htod_async(&mut dev, &guard)? };
    //~^ pageable_async_copy
    s.synchronize()
}

fn fires_vec_behind_rc_refcell(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let shared = Rc::new(RefCell::new(vec![0.0f32; 32]));
    let mut dev = ctx.alloc::<f32>(32)?;
    let host = shared.borrow();
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    //~^ pageable_async_copy
    s.synchronize()
}

async fn ok_async_fn_with_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(16)?;
    let mut dev = ctx.alloc::<f32>(16)?;
    unsafe { s.copy_htod_async(&mut dev, &host)? };
    s.synchronize()
}

fn ok_pinned_behind_arc_mutex(ctx: &Context, s: &Stream, shared: Arc<Mutex<PinnedBuffer<f32>>>) -> Result<(), Error> {
    let guard = shared.lock().unwrap();
    let mut dev = ctx.alloc::<f32>(guard.len())?;
    unsafe { s.copy_htod_async(&mut dev, &guard)? };
    s.synchronize()
}

fn ok_returns_closure_over_pinned(ctx: &Context) -> Result<impl Fn(&Stream, &mut DeviceBuffer<f32>) -> Result<(), Error>, Error> {
    let host = ctx.alloc_pinned::<f32>(16)?;
    Ok(move |s: &Stream, dev: &mut DeviceBuffer<f32>| unsafe { s.copy_htod_async(dev, &host) })
}

fn ok_recursive_helper_given_pinned(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let host = ctx.alloc_pinned::<f32>(512)?;
    let mut devs = [ctx.alloc::<f32>(256)?, ctx.alloc::<f32>(256)?];
    upload_halves(s, &mut devs, &host)?;
    s.synchronize()
}

fn main() {}
