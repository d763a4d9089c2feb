//! case: a texture region whose physical backing can be swapped for a larger-page or compressed one: `swap_backing` maps the new handle over the range without unmapping the old one (mapping a range that is still mapped), and `Drop` releases the handle and frees the reservation while the range is still mapped
//! expect: vmm_lifecycle=2

mod region;
mod texture;

pub use region::Region;
pub use texture::TextureCache;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut cache = TextureCache::new(&ctx, 32 << 20)?;
    cache.clear(0x7f7f7f7f)?;
    cache.recompress()?;
    cache.clear(0)?;
    cache.finish()?;
    Ok(())
}
