//! case: a reduction result is staged for a non-CUDA-aware transport through pinned memory from `result::malloc_host`: `memcpy_dtoh_async` copies the device histogram into it and the pinned pointer goes to a blocking `MPI_Send` before the stream is synchronized, so MPI reads the staging buffer while the copy engine is still writing it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, DevicePtr, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const HIST_SRC: &str = r#"
extern "C" __global__ void synth_samples(float* x, int n, unsigned int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int h = (unsigned int)i * 2654435761u ^ seed;
        h ^= h >> 13; h *= 0x5bd1e995u; h ^= h >> 15;
        x[i] = (float)(h & 0xffff) / 65535.0f;
    }
}

extern "C" __global__ void histogram(const float* x, int n, unsigned int* bins, int nbins) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = min((int)(x[i] * nbins), nbins - 1);
        atomicAdd(&bins[b], 1u);
    }
}
"#;

const HIST_TAG: c_int = 31;

/// Builds a histogram of `n` synthetic samples on the GPU and sends its `nbins` counts to
/// the collector rank through a pinned staging buffer.
pub fn send_histogram_staged(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    collector: c_int,
    n: usize,
    nbins: usize,
) -> Result<(), Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(HIST_SRC)?)?;
    let synth = module.load_function("synth_samples")?;
    let histogram = module.load_function("histogram")?;

    let mut samples = stream.alloc_zeros::<f32>(n)?;
    let mut bins = stream.alloc_zeros::<u32>(nbins)?;
    let (n_i, nbins_i, seed) = (n as i32, nbins as i32, 0x9e37_79b9u32 ^ rank as u32);
    let cfg = LaunchConfig::for_num_elems(n as u32);
    unsafe { stream.launch_builder(&synth).arg(&mut samples).arg(&n_i).arg(&seed).launch(cfg) }?;
    unsafe { stream.launch_builder(&histogram).arg(&samples).arg(&n_i).arg(&mut bins).arg(&nbins_i).launch(cfg) }?;

    // Pinned staging, so the copy below is truly asynchronous.
    let bytes = nbins * std::mem::size_of::<u32>();
    let staging = unsafe { result::malloc_host(bytes, 0) }?;
    let host_bins = unsafe { std::slice::from_raw_parts_mut(staging as *mut u32, nbins) };

    let bins_ptr = bins.device_ptr(&stream).0;
    let staged = unsafe { result::memcpy_dtoh_async(host_bins, bins_ptr, stream.cu_stream()) };
    let rc = if staged.is_ok() {
        unsafe { MPI_Send(staging as *const c_void, nbins as c_int, MPI_UNSIGNED, collector, HIST_TAG, comm) } // EXPECT: missing_sync
    } else {
        MPI_ERR_OTHER
    };

    // Wait for the copy before the staging buffer is released, on every path.
    let drained = stream.synchronize();
    let freed = unsafe { result::free_host(staging) };
    staged?;
    drained?;
    freed?;
    mpi_check(rc, "MPI_Send")?;
    Ok(())
}
