//! case: KV-cache arena made of per-chunk physical allocations in one VMM reservation; defragmentation moves a chunk onto fresh physical memory by saving it to a scratch buffer, unmapping, mapping the new handle at the same address and copying the contents back, and only then re-grants access, so the restore copy runs on a mapping that has no access yet
//! expect: vmm_lifecycle=1

mod arena;
mod defrag;

pub use arena::KvArena;

pub type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn compact(arena: &mut KvArena, fragmented: &[usize]) -> Result<usize> {
    let mut moved = 0;
    for &chunk in fragmented {
        defrag::move_chunk(arena, chunk)?;
        moved += 1;
    }
    Ok(moved)
}
