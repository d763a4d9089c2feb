//! case: paged KV cache on VMM: pages are created, mapped and granted access in the arena; the compactor moves a page's physical handle to a lower slot (unmap, map at the new address) and launches a rescale kernel on the new mapping without cuMemSetAccess
//! expect: vmm_lifecycle=1
pub mod arena;
pub mod compact;

use cudarc::driver::result as drv;

pub type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub fn defragment(live: &[usize], num_pages: usize) -> Res<()> {
    drv::init()?;
    let dev = drv::device::get(0)?;
    let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
    unsafe { drv::ctx::set_current(ctx) }?;

    let mut kv = arena::KvArena::new(dev, num_pages)?;
    for &p in live {
        kv.populate(p)?;
    }
    let compactor = compact::Compactor::new()?;
    // Pack live pages towards the front so the tail of the reservation can be trimmed.
    let mut next_free = 0;
    for &p in live {
        while next_free < num_pages && kv.is_mapped(next_free) && next_free != p {
            next_free += 1;
        }
        if next_free < p {
            compactor.move_page(&mut kv, p, next_free, 0.5)?;
        }
    }
    compactor.finish()?;
    Ok(())
}
