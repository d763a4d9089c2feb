//! case: per-interval loss histograms are copied back and synchronized correctly, then sent to the monitor rank with MPI_Isend from pinned memory; the host zeroes the buffer for the next interval before MPI_Wait, racing the send that is still reading it.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const HIST_SRC: &str = r#"
extern "C" __global__ void loss_histogram(const float* __restrict__ loss,
                                          unsigned int* __restrict__ bins,
                                          int n, int n_bins, float max_loss)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int b = (int)(loss[i] / max_loss * (float)n_bins);
    b = b < 0 ? 0 : (b >= n_bins ? n_bins - 1 : b);
    atomicAdd(&bins[b], 1u);
}
"#;

const TAG_HIST: c_int = 90;

/// Builds this rank's loss histogram for the interval and ships it to `monitor`.
pub fn publish_loss_histogram(
    ctx: &Arc<CudaContext>,
    stream: &Arc<CudaStream>,
    d_loss: &CudaSlice<f32>,
    n_bins: usize,
    max_loss: f32,
    monitor: c_int,
) -> Result<(), Box<dyn Error>> {
    let ptx = compile_ptx(HIST_SRC)?;
    let module = ctx.load_module(ptx)?;
    let hist = module.load_function("loss_histogram")?;

    let mut d_bins = stream.alloc_zeros::<u32>(n_bins)?;
    let n = d_loss.len() as i32;
    let nb = n_bins as i32;
    let mut b = stream.launch_builder(&hist);
    b.arg(d_loss).arg(&mut d_bins).arg(&n).arg(&nb).arg(&max_loss);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32))? };

    // Not write-combined: the host reads and rewrites these bins.
    let mut h_bins = unsafe { ctx.alloc_pinned_with_flags::<u32>(n_bins, 0)? };
    stream.memcpy_dtoh(&d_bins, &mut h_bins)?;
    stream.synchronize()?;

    let bins = h_bins.as_mut_slice()?;
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    let rc = unsafe { MPI_Isend(bins.as_ptr() as *const c_void, nb, MPI_UNSIGNED, monitor, TAG_HIST, MPI_COMM_WORLD, &mut req) };
    mpi_check(rc, "MPI_Isend");

    // Start the next interval from empty bins.
    for i in 0..n_bins {
        bins[i] = 0; // EXPECT: missing_sync
    }

    let rc = unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    mpi_check(rc, "MPI_Wait");
    Ok(())
}
