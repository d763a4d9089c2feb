//! case: near miss of r303: the same GPU statistics and `MPI_Allgather` of device buffers, but an event recorded after the closure's two launches is synchronized before the collective, so the finalize kernel has finished writing `stats`.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, DevicePtr, DevicePtrMut, DriverError, LaunchConfig, PushKernelArg, result,
};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm};

const STATS: &str = r#"
extern "C" __global__ void block_stats(const float* r, float* partial, int n) {
    __shared__ float s_min[256], s_max[256], s_sum[256], s_sq[256];
    int t = threadIdx.x;
    float lo = 3.4e38f, hi = -3.4e38f, sum = 0.f, sq = 0.f;
    for (int i = blockIdx.x * blockDim.x + t; i < n; i += gridDim.x * blockDim.x) {
        float v = r[i];
        lo = fminf(lo, v); hi = fmaxf(hi, v); sum += v; sq += v * v;
    }
    s_min[t] = lo; s_max[t] = hi; s_sum[t] = sum; s_sq[t] = sq;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (t < s) {
            s_min[t] = fminf(s_min[t], s_min[t + s]); s_max[t] = fmaxf(s_max[t], s_max[t + s]);
            s_sum[t] += s_sum[t + s]; s_sq[t] += s_sq[t + s];
        }
        __syncthreads();
    }
    if (t == 0) {
        partial[4 * blockIdx.x + 0] = s_min[0]; partial[4 * blockIdx.x + 1] = s_max[0];
        partial[4 * blockIdx.x + 2] = s_sum[0]; partial[4 * blockIdx.x + 3] = s_sq[0];
    }
}
extern "C" __global__ void finalize_stats(const float* partial, float* stats, int blocks, int n) {
    if (threadIdx.x != 0 || blockIdx.x != 0) return;
    float lo = 3.4e38f, hi = -3.4e38f, sum = 0.f, sq = 0.f;
    for (int b = 0; b < blocks; ++b) {
        lo = fminf(lo, partial[4 * b]); hi = fmaxf(hi, partial[4 * b + 1]);
        sum += partial[4 * b + 2]; sq += partial[4 * b + 3];
    }
    stats[0] = lo; stats[1] = hi; stats[2] = sum / n; stats[3] = sqrtf(sq);
}
"#;

#[derive(Debug, Clone, Copy)]
pub struct RankStats {
    pub min: f32,
    pub max: f32,
    pub mean: f32,
    pub l2: f32,
}

/// Gathers min/max/mean/L2 of every rank's residual, computed where the residual lives.
pub fn residual_report(ctx: &Arc<CudaContext>, comm: MPI_Comm, residual: &CudaSlice<f32>) -> Result<Vec<RankStats>, Box<dyn Error>> {
    let (_rank, nranks) = ffi::rank_and_size(comm)?;
    let stream = residual.stream().clone();
    let module = ctx.load_module(compile_ptx(STATS)?)?;
    let reduce = module.load_function("block_stats")?;
    let finalize = module.load_function("finalize_stats")?;

    let n = residual.len() as c_int;
    let blocks = (residual.len().div_ceil(256)).clamp(1, 512);
    let mut partial = unsafe { stream.alloc::<f32>(4 * blocks) }?;
    let mut stats = unsafe { stream.alloc::<f32>(4) }?;
    let mut all = unsafe { stream.alloc::<f32>(4 * nranks as usize) }?;
    stream.synchronize()?; // stream-ordered allocations are usable by MPI from here on

    let run_stats = |partial: &mut CudaSlice<f32>, stats: &mut CudaSlice<f32>| -> Result<(), DriverError> {
        let nb = blocks as c_int;
        let wide = LaunchConfig { grid_dim: (blocks as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
        unsafe { stream.launch_builder(&reduce).arg(residual).arg(&mut *partial).arg(&n).launch(wide) }?;
        unsafe { stream.launch_builder(&finalize).arg(&*partial).arg(stats).arg(&nb).arg(&n).launch(LaunchConfig::for_num_elems(1)) }?;
        Ok(())
    };
    run_stats(&mut partial, &mut stats)?;
    let stats_ready = stream.record_event(None)?;

    // Every rank has finished its step before we exchange the statistics.
    ffi::check("MPI_Barrier", unsafe { ffi::MPI_Barrier(comm) })?;
    stats_ready.synchronize()?; // the barrier orders ranks, not our kernels
    let send = stats.device_ptr(&stream).0 as *const c_void;
    let recv = all.device_ptr_mut(&stream).0 as *mut c_void;
    let rc = unsafe { ffi::MPI_Allgather(send, 4, ffi::dt_float(), recv, 4, ffi::dt_float(), comm) };
    ffi::check("MPI_Allgather", rc)?;

    // Bring the gathered table home through pinned memory.
    let count = 4 * nranks as usize;
    let host = unsafe { result::malloc_host(count * std::mem::size_of::<f32>(), 0) }? as *mut f32;
    let table = unsafe { std::slice::from_raw_parts_mut(host, count) };
    let copied = unsafe { result::memcpy_dtoh_async(table, all.device_ptr(&stream).0, stream.cu_stream()) };
    let synced = stream.synchronize();
    let report = if copied.is_ok() && synced.is_ok() {
        table.chunks_exact(4).map(|s| RankStats { min: s[0], max: s[1], mean: s[2], l2: s[3] }).collect()
    } else {
        Vec::new()
    };
    unsafe { result::free_host(host as *mut c_void) }?;
    copied?;
    synced?;
    Ok(report)
}
