use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg,
};
use cudarc::nvrtc::{compile_ptx, CompileError};

use super::grid::Grid;
use super::kernels::{BLOCK, HEAT_STEP_SRC};

#[derive(Debug)]
pub enum SolverError {
    Driver(DriverError),
    Compile(CompileError),
}

impl From<DriverError> for SolverError {
    fn from(e: DriverError) -> Self {
        SolverError::Driver(e)
    }
}

impl From<CompileError> for SolverError {
    fn from(e: CompileError) -> Self {
        SolverError::Compile(e)
    }
}

pub struct HeatSolver {
    grid: Grid,
    stream: Arc<CudaStream>,
    step_fn: CudaFunction,
    cur: CudaSlice<f32>,
    next: CudaSlice<f32>,
    snapshot: PinnedHostSlice<f32>,
}

impl HeatSolver {
    pub fn new(ctx: &Arc<CudaContext>, grid: Grid) -> Result<Self, SolverError> {
        // A dedicated stream: cudarc switches the context to multi-stream mode and tracks
        // every buffer's uses with events from here on.
        let stream = ctx.new_stream()?;
        let module = ctx.load_module(compile_ptx(HEAT_STEP_SRC)?)?;
        let step_fn = module.load_function("heat_step")?;

        let mut snapshot = unsafe { ctx.alloc_pinned_with_flags::<f32>(grid.cells(), 0)? };
        grid.initial_condition(snapshot.as_mut_slice()?);
        let mut cur = stream.alloc_zeros::<f32>(grid.cells())?;
        stream.memcpy_htod(&snapshot, &mut cur)?;
        let next = stream.clone_dtod(&cur)?;
        Ok(Self { grid, stream, step_fn, cur, next, snapshot })
    }

    fn launch_config(&self) -> LaunchConfig {
        LaunchConfig {
            grid_dim: ((self.grid.nx as u32).div_ceil(BLOCK.0), (self.grid.ny as u32).div_ceil(BLOCK.1), 1),
            block_dim: BLOCK,
            shared_mem_bytes: 0,
        }
    }

    pub fn step(&mut self) -> Result<(), SolverError> {
        let cfg = self.launch_config();
        let (nx, ny) = (self.grid.nx as i32, self.grid.ny as i32);
        let coeff = self.grid.alpha * self.grid.stable_dt() / (self.grid.dx * self.grid.dx);
        let mut launch = self.stream.launch_builder(&self.step_fn);
        launch.arg(&self.cur).arg(&mut self.next).arg(&nx).arg(&ny).arg(&coeff);
        unsafe { launch.launch(cfg) }?;
        std::mem::swap(&mut self.cur, &mut self.next);
        Ok(())
    }

    /// Copies the current field back and returns its maximum.
    pub fn peak_temperature(&mut self) -> Result<f32, SolverError> {
        self.stream.memcpy_dtoh(&self.cur, &mut self.snapshot)?;
        // as_slice waits on the pinned buffer's event, recorded after the copy above.
        let peak = self.snapshot.as_slice()?.iter().copied().fold(f32::MIN, f32::max);
        Ok(peak)
    }
}
