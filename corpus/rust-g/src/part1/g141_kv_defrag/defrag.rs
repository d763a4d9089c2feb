use cudarc::driver::sys;

use super::arena::{prop, KvArena};
use super::Result;

/// Moves chunk `i` of the arena onto a freshly created physical allocation, keeping its
/// address and its contents.
pub fn move_chunk(arena: &mut KvArena, i: usize) -> Result<()> {
    let va = arena.chunk_va(i);
    let bytes = arena.chunk_bytes;
    let mut scratch = 0;
    let mut fresh = 0;
    let p = prop(arena.dev);
    unsafe {
        sys::cuMemAlloc_v2(&mut scratch, bytes).result()?;
        sys::cuMemcpyDtoDAsync_v2(scratch, va, bytes, arena.stream).result()?;
        sys::cuStreamSynchronize(arena.stream).result()?;

        sys::cuMemUnmap(va, bytes).result()?;
        sys::cuMemRelease(arena.handles[i]).result()?;
        sys::cuMemCreate(&mut fresh, bytes, &p, 0).result()?;
        sys::cuMemMap(va, bytes, 0, fresh, 0).result()?;
        arena.handles[i] = fresh;

        sys::cuMemcpyDtoDAsync_v2(va, scratch, bytes, arena.stream).result()?; // EXPECT: vmm_lifecycle
    }
    arena.grant(va, bytes)?;
    unsafe {
        sys::cuStreamSynchronize(arena.stream).result()?;
        sys::cuMemFree_v2(scratch).result()?;
    }
    Ok(())
}
