use std::ptr::null_mut;

use cudarc::driver::sys;

use super::arena::{ck, ArenaError, NeighborArena};

pub struct NeighborParams {
    pub atoms: usize,
    pub max_neighbors: usize,
    pub cutoff: f32,
}

/// Clears the list and launches the cell-list kernel (loaded by the force-field module) on the
/// arena's stream; the arena has already granted access to every mapped byte.
pub fn rebuild_neighbor_list(
    arena: &mut NeighborArena,
    kernel: sys::CUfunction,
    positions: sys::CUdeviceptr,
    p: &NeighborParams,
) -> Result<sys::CUdeviceptr, ArenaError> {
    let bytes = p.atoms * (p.max_neighbors + 1) * 4;
    arena.ensure(bytes)?;
    let list = arena.base();
    unsafe {
        ck(sys::cuMemsetD32Async(list, 0, bytes / 4, arena.stream), "clear")?;
    }
    let mut pos = positions;
    let mut out = list;
    let mut n = p.atoms as i32;
    let mut maxn = p.max_neighbors as i32;
    let mut rc2 = p.cutoff * p.cutoff;
    let mut params = [
        (&mut pos as *mut sys::CUdeviceptr).cast::<std::ffi::c_void>(),
        (&mut out as *mut sys::CUdeviceptr).cast(),
        (&mut n as *mut i32).cast(),
        (&mut maxn as *mut i32).cast(),
        (&mut rc2 as *mut f32).cast(),
    ];
    unsafe {
        ck(
            sys::cuLaunchKernel(kernel, (p.atoms as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, arena.stream, params.as_mut_ptr(), null_mut()),
            "neighbors",
        )?;
    }
    Ok(list)
}
