use super::Res;
use super::pool::StagingPool;
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::sync::Arc;
use std::thread;

/// A raw context handle that may be made current on another thread.
#[derive(Clone, Copy)]
struct Ctx(sys::CUcontext);
unsafe impl Send for Ctx {}

#[derive(Clone, Copy)]
struct DevPtr(sys::CUdeviceptr);

/// Uploads `column` into `dst` chunk by chunk on `workers` threads.
pub fn upload_column(column: Arc<Vec<u8>>, workers: usize) -> Res<sys::CUdeviceptr> {
    drv::init()?;
    let dev = drv::device::get(0)?;
    let ctx = Ctx(unsafe { drv::primary_ctx::retain(dev) }?);
    unsafe { drv::ctx::set_current(ctx.0) }?;
    let pool = Arc::new(StagingPool::new(workers * 2, 8 << 20)?);
    let dst = DevPtr(unsafe { drv::malloc_sync(column.len()) }?);
    let chunk = pool.block_bytes;
    let nchunks = column.len().div_ceil(chunk);

    let handles: Vec<_> = (0..workers)
        .map(|w| {
            let pool = Arc::clone(&pool);
            let column = Arc::clone(&column);
            thread::spawn(move || -> Res<()> {
                let ctx = ctx;
                let dst = dst;
                unsafe { drv::ctx::set_current(ctx.0) }?;
                let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
                for c in (w..nchunks).step_by(workers) {
                    let lo = c * chunk;
                    let hi = (lo + chunk).min(column.len());
                    let block = pool.take();
                    let host = unsafe { std::slice::from_raw_parts_mut(block.ptr.cast::<u8>(), hi - lo) };
                    host.copy_from_slice(&column[lo..hi]);
                    unsafe {
                        sys::cuMemcpyHtoDAsync_v2(dst.0 + lo as u64, block.ptr, hi - lo, stream).result()?;
                        drv::stream::synchronize(stream)?;
                    }
                    pool.give_back(block);
                }
                unsafe { drv::stream::destroy(stream) }?;
                Ok(())
            })
        })
        .collect();
    for h in handles {
        h.join().map_err(|_| "upload worker panicked")??;
    }
    Ok(dst.0)
}
