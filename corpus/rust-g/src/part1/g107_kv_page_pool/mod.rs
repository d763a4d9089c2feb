//! case: paged KV-cache pool on the raw VMM driver API that grows by mapping new physical chunks at the end of one reservation; `grow` zero-fills the new pages with `cuMemsetD32Async` before calling the `grant_rw` helper, so the memset runs on a mapping without access
//! expect: vmm_lifecycle=1

mod access;
mod pool;

use cudarc::driver::{result, sys, CudaContext};

pub use pool::PagePool;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn serve_with_growing_pool(requests: &[usize]) -> Result<usize> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let dev = ctx.cu_device();

    let gran = access::granularity(dev)?;
    let page_bytes = gran; // one KV page per granule
    let mut pool = PagePool::reserve(dev, stream, page_bytes, 1024)?;

    let mut pages_in_use = 0usize;
    for &tokens in requests {
        let needed = tokens.div_ceil(16); // 16 tokens per page
        while pages_in_use + needed > pool.mapped_pages() {
            pool.grow(64.min(pool.reserved_pages() - pool.mapped_pages()))?;
        }
        pages_in_use += needed;
    }
    unsafe { sys::cuStreamSynchronize(stream).result()? };
    let mapped = pool.mapped_pages();
    drop(pool);
    unsafe { result::stream::destroy(stream)? };
    Ok(mapped)
}
