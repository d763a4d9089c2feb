use std::ffi::c_void;
use std::ptr::null_mut;

use super::ffi::*;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct TileStats {
    pub min_depth: f32,
    pub max_depth: f32,
    pub mean_depth: f32,
    pub soundings: u32,
}

pub struct GridProduct {
    pub depths: Box<[f32]>,
    pub deepest_tile: usize,
    pub empty_tiles: usize,
}

pub struct Gridder {
    stream: CUstream,
    tile_stats: CUfunction,
    d_grid: CUdeviceptr,
    d_stats: CUdeviceptr,
    h_stats: *mut TileStats,
    nx: usize,
    ny: usize,
    tile: usize,
}

impl Gridder {
    pub fn new(stream: CUstream, tile_stats: CUfunction, d_grid: CUdeviceptr, d_stats: CUdeviceptr, nx: usize, ny: usize, tile: usize) -> Result<Self, CUresult> {
        let tiles = nx.div_ceil(tile) * ny.div_ceil(tile);
        let mut p: *mut c_void = null_mut();
        unsafe { ck(cuMemAllocHost_v2(&mut p, tiles * std::mem::size_of::<TileStats>()))? };
        Ok(Self { stream, tile_stats, d_grid, d_stats, h_stats: p.cast(), nx, ny, tile })
    }

    fn tiles(&self) -> usize {
        self.nx.div_ceil(self.tile) * self.ny.div_ceil(self.tile)
    }

    /// The CUBE-style gridding kernels have already filled `d_grid` on `stream`.
    pub fn export(&mut self) -> Result<GridProduct, CUresult> {
        let cells = self.nx * self.ny;
        let mut depths = vec![0.0f32; cells].into_boxed_slice();
        unsafe {
            ck(cuMemcpyDtoHAsync_v2(depths.as_mut_ptr().cast(), self.d_grid, cells * 4, self.stream))?; // EXPECT: pageable_async_copy
        }
        let tiles = self.tiles();
        let (mut g, mut s, mut nx, mut ny, mut t) = (self.d_grid, self.d_stats, self.nx as i32, self.ny as i32, self.tile as i32);
        let mut params = [
            (&mut g as *mut CUdeviceptr).cast::<c_void>(),
            (&mut s as *mut CUdeviceptr).cast(),
            (&mut nx as *mut i32).cast(),
            (&mut ny as *mut i32).cast(),
            (&mut t as *mut i32).cast(),
        ];
        unsafe {
            ck(cuLaunchKernel(self.tile_stats, tiles as u32, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()))?;
            ck(cuMemcpyDtoHAsync_v2(self.h_stats.cast(), self.d_stats, tiles * std::mem::size_of::<TileStats>(), self.stream))?;
        }
        let stats = unsafe { std::slice::from_raw_parts(self.h_stats, tiles) };
        let deepest_tile = stats.iter().enumerate().max_by(|a, b| a.1.max_depth.total_cmp(&b.1.max_depth)).map(|(i, _)| i).unwrap_or(0); // EXPECT: missing_sync
        let empty_tiles = stats.iter().filter(|s| s.soundings == 0).count();
        unsafe { ck(cuStreamSynchronize(self.stream))? };
        Ok(GridProduct { depths, deepest_tile, empty_tiles })
    }
}

impl Drop for Gridder {
    fn drop(&mut self) {
        unsafe {
            cuStreamSynchronize(self.stream);
            cuMemFreeHost(self.h_stats.cast());
        }
    }
}
