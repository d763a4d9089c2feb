//! case: reverse-time-migration forward pass with a compute stream and a copy stream (event tracking disabled for speed, so cudarc orders nothing): the snapshot copy on the copy stream reads the wavefield while the propagation kernel on the compute stream may still be writing it, with no event between the streams; also the velocity model is uploaded from a `Vec`
//! expect: missing_sync=1, pageable_async_copy=1

pub mod imaging;
pub mod streams;

use cudarc::driver::CudaContext;

pub use imaging::ForwardModel;
pub use streams::StreamPair;

/// Runs the forward pass and returns the energy of every saved snapshot.
pub fn forward_pass(velocity: Vec<f32>, nx: usize, nz: usize, steps: usize, save_every: usize) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let pair = StreamPair::new(&ctx)?;
    let mut model = ForwardModel::new(&ctx, pair, nx, nz)?;
    model.load_velocity(&velocity)?;
    let mut energies = Vec::new();
    for t in 0..steps {
        model.propagate(t)?;
        if t % save_every == 0 {
            energies.push(model.snapshot_energy()?);
        }
    }
    Ok(energies)
}
