//! case: gigapixel microscopy tile atlas backed by one VMM allocation (raw cudarc `sys`): reserve, create, map, grant access and upload tiles from pinned memory are in order, but teardown releases the handle and frees the reserved range without ever calling `cuMemUnmap`: `cuMemAddressFree` of a range that is still mapped fails and the range stays reserved
//! expect: vmm_lifecycle=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaStream, DriverError};

pub const TILE_BYTES: usize = 256 * 256 * 4;

pub struct TileAtlas {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    capacity: usize,
    resident: Vec<Option<(u32, u32, u32)>>,
}

fn alloc_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ordinal;
    prop
}

impl TileAtlas {
    pub fn new(ctx: &Arc<CudaContext>, capacity: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let ordinal = ctx.ordinal() as i32;
        let prop = alloc_prop(ordinal);
        let mut gran = 0usize;
        let mut va: sys::CUdeviceptr = 0;
        let mut handle: sys::CUmemGenericAllocationHandle = 0;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let size = (capacity * TILE_BYTES).div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location = prop.location;
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            sys::cuMemSetAccess(va, size, &access, 1).result()?;
            Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, va, size, handle, capacity, resident: vec![None; capacity] })
        }
    }

    /// Uploads one decoded RGBA tile (staged in page-locked memory) into a free or evicted slot.
    pub fn upload(&mut self, key: (u32, u32, u32), staged: &StagedTile) -> Result<usize, DriverError> {
        let slot = self
            .resident
            .iter()
            .position(|s| s.is_none())
            .unwrap_or((key.0 as usize * 31 + key.1 as usize) % self.capacity);
        let dst = self.va + (slot * TILE_BYTES) as u64;
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, staged.0 as *const c_void, TILE_BYTES, self.stream.cu_stream()).result()? };
        self.resident[slot] = Some(key);
        Ok(slot)
    }

    pub fn tile_ptr(&self, slot: usize) -> sys::CUdeviceptr {
        self.va + (slot * TILE_BYTES) as u64
    }
}

impl Drop for TileAtlas {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size); // EXPECT: vmm_lifecycle
        }
    }
}

/// One tile in page-locked memory (`cuMemHostAlloc`), only made by `stage_tile`.
pub struct StagedTile(*mut u8);

/// Stages a tile in page-locked memory for `TileAtlas::upload`.
pub fn stage_tile(rgba: &[u8]) -> Result<StagedTile, DriverError> {
    let p = unsafe { result::malloc_host(TILE_BYTES, 0)? } as *mut u8;
    unsafe { std::ptr::copy_nonoverlapping(rgba.as_ptr(), p, TILE_BYTES.min(rgba.len())) };
    Ok(StagedTile(p))
}

/// Releases a staging buffer once the atlas stream has consumed it.
pub fn release_staged(atlas: &TileAtlas, staged: StagedTile) -> Result<(), DriverError> {
    atlas.stream.synchronize()?;
    unsafe { result::free_host(staged.0 as *mut c_void) }
}
