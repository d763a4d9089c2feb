//! case: a solver workspace owns device, pinned, managed and C-heap allocations behind one `Allocation` enum whose `Drop` dispatches on the variant to the matching release call (`cuMemFree`, `cuMemFreeHost`, `libc::free`); the workspace synchronizes before it is dropped and touches the managed block only after synchronizing
//! expect: none

mod alloc;
mod workspace;

pub use alloc::Allocation;
pub use workspace::Workspace;

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = cudarc::driver::CudaContext::new(0)?;
    let mut ws = Workspace::new(&ctx, 1 << 20)?;
    let residual = ws.jacobi_sweeps(50)?;
    println!("residual after 50 sweeps: {residual:e}");
    Ok(())
}
