// An async-copy wrapper summarised with `#[cuda_lint::copies_async]`: its callers' pageable
// sources are flagged at the call, even though the wrapper's body is out of sight.
use cuda_lint_runtime::{Context, DeviceBuffer, Error, Stream};

mod ffi {
    unsafe extern "C" {
        pub fn dma_submit(dst: u64, src: *const f32, bytes: usize, queue: *mut std::ffi::c_void) -> i32;
    }
}

struct Uploader {
    stream: Stream,
}

impl Uploader {
    #[cuda_lint::copies_async(htod, dst = dst, src = src, stream = self)]
    fn upload(&self, dst: &mut DeviceBuffer<f32>, src: &[f32]) {
        let _ = &self.stream;
        unsafe { ffi::dma_submit(0, src.as_ptr(), std::mem::size_of_val(src), std::ptr::null_mut()) };
        let _ = dst;
    }

    /// The same, unannotated: nothing tells the lint it copies.
    fn upload_unannotated(&self, dst: &mut DeviceBuffer<f32>, src: &[f32]) {
        unsafe { ffi::dma_submit(0, src.as_ptr(), std::mem::size_of_val(src), std::ptr::null_mut()) };
        let _ = dst;
    }
}

#[cuda_lint::copies_async(dst = dst, src = src, stream = s)]
fn copy_any(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) {
    let _ = (s, dst, src);
}

fn fires_vec_through_the_summarised_wrapper(ctx: &Context, up: &Uploader) -> Result<(), Error> {
    let data = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    up.upload(&mut dev, &data);
    //~^ pageable_async_copy
    Ok(())
}

fn fires_direction_inferred_from_the_memory(ctx: &Context, s: &Stream) -> Result<(), Error> {
    let data = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    copy_any(s, &mut dev, &data);
    //~^ pageable_async_copy
    Ok(())
}

fn fires_array_in_a_loop(ctx: &Context, up: &Uploader) -> Result<(), Error> {
    let mut dev = ctx.alloc::<f32>(1 << 16)?;
    for step in 0..4 {
        let row = [step as f32; 1 << 16];
        up.upload(&mut dev, &row);
        //~^ pageable_async_copy
    }
    Ok(())
}

fn ok_pinned_through_the_summarised_wrapper(ctx: &Context, up: &Uploader) -> Result<(), Error> {
    let data = ctx.alloc_pinned::<f32>(1024)?;
    let mut dev = ctx.alloc::<f32>(1024)?;
    up.upload(&mut dev, &data);
    Ok(())
}

fn ok_unannotated_wrapper_is_not_known_to_copy(ctx: &Context, up: &Uploader) -> Result<(), Error> {
    let data = vec![1.0f32; 1024];
    let mut dev = ctx.alloc::<f32>(1024)?;
    up.upload_unannotated(&mut dev, &data);
    Ok(())
}

#[cuda_lint::allow(pageable_async_copy, reason = "a one-off upload of a small table")]
fn ok_allowed(ctx: &Context, up: &Uploader) -> Result<(), Error> {
    let data = vec![1.0f32; 16];
    let mut dev = ctx.alloc::<f32>(16)?;
    up.upload(&mut dev, &data);
    Ok(())
}

fn main() {}
