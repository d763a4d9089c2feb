//! case: a sparse-matrix workspace maps its VMM buffers through a helper module whose `map_rw` always calls `cuMemSetAccess` before returning, and whose `Drop` synchronizes, unmaps, releases and frees the range in order; the user module only ever sees mapped, accessible ranges and reads results from cached pinned memory after synchronizing
//! expect: none

mod spmv;
mod vmm;

pub use spmv::SpmvWorkspace;
pub use vmm::VmmBuffer;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut ws = SpmvWorkspace::new(&ctx, 1 << 20)?;
    let norm = ws.tridiagonal_apply(2.0, -1.0)?;
    println!("|A x|_1 = {norm}");
    Ok(())
}
