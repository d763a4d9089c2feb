//! case: a particle-count readback calls cudarc's result::memcpy_dtoh_sync with the source address taken from a host Vec of counters cast to CUdeviceptr instead of the cuMemAlloc_v2 counter buffer.
//! expect: memcpy_kind_mismatch=1
use cudarc::driver::{result, sys};

pub struct BinGrid {
    pub nx: usize,
    pub ny: usize,
    pub d_counts: sys::CUdeviceptr,
    pub host_counts: Vec<u32>,
}

pub fn new_grid(nx: usize, ny: usize) -> BinGrid {
    let mut d_counts: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_counts, nx * ny * 4);
        sys::cuMemsetD32_v2(d_counts, 0, nx * ny);
    }
    BinGrid { nx, ny, d_counts, host_counts: vec![0; nx * ny] }
}

pub fn occupied_cells(grid: &BinGrid) -> usize {
    let mut out = vec![0u32; grid.nx * grid.ny];
    unsafe {
        sys::cuCtxSynchronize();
        let src = grid.host_counts.as_ptr() as sys::CUdeviceptr;
        result::memcpy_dtoh_sync(&mut out, src).unwrap(); // EXPECT: memcpy_kind_mismatch
    }
    out.iter().filter(|&&c| c > 0).count()
}

pub fn densest(grid: &BinGrid, counts: &[u32]) -> (usize, usize) {
    let (i, _) = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap_or((0, &0));
    (i % grid.nx, i / grid.nx)
}
