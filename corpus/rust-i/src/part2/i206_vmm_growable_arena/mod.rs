//! case: growable device arena for a query engine's hash tables (VMM through cudarc's driver sys layer): each grow maps a new chunk at the end of the reservation and zero-fills it with cuMemsetD8Async before cuMemSetAccess grants the device access
//! expect: vmm_lifecycle=1

mod arena;
mod props;

pub use arena::GrowableArena;

use cudarc::driver::sys::CUresult;

#[derive(Debug)]
pub struct VmmError {
    pub call: &'static str,
    pub code: CUresult,
}

pub(crate) fn vmm_ok(call: &'static str, code: CUresult) -> Result<(), VmmError> {
    if code == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(VmmError { call, code }) }
}

/// Builds hash tables of increasing size without ever moving the ones already built.
pub fn build_tables(device: i32, table_sizes: &[usize], stream: cudarc::driver::sys::CUstream) -> Result<(GrowableArena, Vec<u64>), VmmError> {
    let mut arena = GrowableArena::new(device, 64 << 30)?;
    let mut bases = Vec::with_capacity(table_sizes.len());
    for &bytes in table_sizes {
        bases.push(arena.alloc(bytes, stream)?);
    }
    unsafe { vmm_ok("cuStreamSynchronize", cudarc::driver::sys::cuStreamSynchronize(stream))? };
    Ok((arena, bases))
}
