//! case: left-looking sparse LU panel update whose device workspace lives in an enum (`Workspace::Active(CudaSlice)`) and is released with `std::mem::replace` right after the update kernel is enqueued: the `CudaSlice` was allocated on the solver's stream and passed to the kernel as a `CudaSlice` argument on that same stream, so cudarc's stream-ordered free runs after the kernel; the pivot growth is read after synchronize
//! expect: none

pub mod factor;
pub mod workspace;

use cudarc::driver::CudaContext;

pub use factor::PanelFactor;
pub use workspace::Workspace;

pub fn panel_growth(panel: &[f64], rows: usize, cols: usize) -> Result<f64, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut factor = PanelFactor::new(&ctx, rows, cols)?;
    factor.load(panel)?;
    factor.update_and_growth()
}
