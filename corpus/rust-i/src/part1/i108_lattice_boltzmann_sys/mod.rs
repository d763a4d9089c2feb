//! case: D2Q9 lattice-Boltzmann channel-flow solver on cudarc's raw `driver::sys` layer: the obstacle mask is uploaded with cuMemcpyHtoDAsync_v2 from a Box<[u8]> (pageable), and the solver's teardown releases the cuMemAlloc'd distribution array with cuMemFreeHost
//! expect: pageable_async_copy=1, mismatched_free=1

mod geometry;
mod solver;
mod teardown;

pub use geometry::Obstacle;
pub use solver::LbmSolver;

pub type LbmResult<T> = Result<T, cudarc::driver::DriverError>;

pub(crate) fn ck(r: cudarc::driver::sys::CUresult) -> LbmResult<()> {
    r.result()
}

pub fn run_channel(nx: usize, ny: usize, steps: usize) -> LbmResult<f64> {
    let obstacles = [Obstacle::Cylinder { cx: nx as f32 / 4.0, cy: ny as f32 / 2.0, r: ny as f32 / 9.0 }];
    let mut solver = LbmSolver::new(nx, ny, &obstacles)?;
    for _ in 0..steps {
        solver.step()?;
    }
    solver.mean_density()
}
