//! case: a convergence monitor on rank 0 posts the receive of another rank's residual history into pinned host memory through a post_recv helper, computes and copies back its own residuals, synchronizes the CUDA stream and then reads the received residuals on the host before MPI_Wait; the stream synchronize completes no MPI request.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtrMut, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const RESID_TAG: c_int = 55;

const RESID_SRC: &str = r#"
extern "C" __global__ void residual_history(double* r, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) r[i] = 1.0 / (double)(1 + i) + 1e-3 * (double)rank;
}
"#;

/// Posts a receive of `n` doubles from any rank into `buf` (device or host memory).
fn post_recv(buf: u64, n: usize) -> MPI_Request {
    let mut req = MPI_REQUEST_NULL;
    unsafe {
        MPI_Irecv(buf as *mut c_void, n as c_int, MPI_DOUBLE, MPI_ANY_SOURCE, RESID_TAG, MPI_COMM_WORLD, &mut req);
    }
    req
}

/// Computes this rank's residual history and enqueues its copy into pinned `local`.
fn local_residuals(
    stream: &Arc<CudaStream>,
    hist: &CudaFunction,
    resid: &mut CudaSlice<f64>,
    local: *mut f64,
    rank: c_int,
) -> Result<(), DriverError> {
    let n = resid.len();
    let n_i = n as c_int;
    let mut b = stream.launch_builder(hist);
    b.arg(&mut *resid).arg(&n_i).arg(&rank);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32))? };
    let dst = unsafe { std::slice::from_raw_parts_mut(local, n) };
    let src = resid.device_ptr_mut(stream).0;
    unsafe { result::memcpy_dtoh_async(dst, src, stream.cu_stream()) }
}

/// Returns (local worst residual, remote worst residual) on rank 0; rank 1 sends its history.
pub fn compare_residuals(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    n: usize,
) -> Result<(f64, f64), Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let m = ctx.load_module(compile_ptx(RESID_SRC)?)?;
    let hist = m.load_function("residual_history")?;

    let bytes = n * std::mem::size_of::<f64>();
    let mut resid = stream.alloc_zeros::<f64>(n)?;
    let local = unsafe { result::malloc_host(bytes, 0)? } as *mut f64;
    let remote = unsafe { result::malloc_host(bytes, 0) }.expect("pinned remote buffer") as *mut f64;

    let mut worst = (0.0f64, 0.0f64);
    if rank == 0 {
        // Post early so the message can land while we compute our own history.
        let mut req = post_recv(remote as u64, n);
        local_residuals(&stream, &hist, &mut resid, local, rank).expect("local residuals");
        stream.synchronize().expect("residual stream");

        for i in 0..n {
            let mine = unsafe { *local.add(i) };
            let theirs = unsafe { *remote.add(i) }; // EXPECT: missing_sync
            worst.0 = worst.0.max(mine);
            worst.1 = worst.1.max(theirs);
        }
        unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    } else {
        local_residuals(&stream, &hist, &mut resid, local, rank).expect("local residuals");
        stream.synchronize().expect("residual stream");
        if rank == 1 {
            unsafe { MPI_Send(local as *const c_void, n as c_int, MPI_DOUBLE, 0, RESID_TAG, MPI_COMM_WORLD) };
        }
    }

    unsafe {
        result::free_host(local as *mut c_void).expect("free local");
        result::free_host(remote as *mut c_void).expect("free remote");
    }
    Ok(worst)
}
