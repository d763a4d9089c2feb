//! case: particle system of a game engine with a simulation stream and a render-readback stream; the simulation launches its kernel with the raw pointer taken from `device_ptr_mut` (whose guard records the write event before the launch), so when the render stream copies the positions cudarc's wait covers nothing of the kernel and the copy can read half-updated positions
//! expect: missing_sync=1

mod render;
mod sim;

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice};

pub use render::RenderReadback;
pub use sim::Simulator;

pub type GameResult<T> = Result<T, Box<dyn std::error::Error>>;

pub struct ParticleSystem {
    positions: CudaSlice<f32>,
    velocities: CudaSlice<f32>,
    sim: Simulator,
    render: RenderReadback,
}

impl ParticleSystem {
    pub fn new(ctx: &Arc<CudaContext>, particles: usize) -> GameResult<Self> {
        let sim = Simulator::new(ctx)?;
        let render = RenderReadback::new(ctx, particles)?;
        Ok(Self {
            positions: sim.stream().alloc_zeros::<f32>(particles * 3)?,
            velocities: sim.stream().alloc_zeros::<f32>(particles * 3)?,
            sim,
            render,
        })
    }

    /// Advances the simulation and returns the positions to draw this frame.
    pub fn frame(&mut self, dt: f32) -> GameResult<Vec<[f32; 3]>> {
        self.sim.step(&mut self.positions, &mut self.velocities, dt)?;
        self.render.readback(&self.positions)
    }
}
