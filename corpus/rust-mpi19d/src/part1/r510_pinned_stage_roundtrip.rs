//! case: near miss of r509: a pairwise exchange staged through two `result::malloc_host` buffers; the device-to-host `memcpy_dtoh_async` is followed by `stream.synchronize()` before `MPI_Isend`, the receive buffer is read by `memcpy_htod_async` only after `MPI_Waitall` on the array holding its request, and both pinned buffers are freed after a final synchronize.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const PAIR_SRC: &str = r#"
extern "C" __global__ void make_state(float* s, int n, float phase) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) s[i] = __sinf(phase + 0.01f * (float)i);
}

extern "C" __global__ void blend(float* mine, const float* theirs, int n, float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mine[i] = (1.0f - alpha) * mine[i] + alpha * theirs[i];
}
"#;

const PAIR_TAG: c_int = 41;

/// Blends this rank's `n`-float state with `partner`'s, moving the data through pinned host
/// buffers (the MPI library here is not CUDA-aware).
pub fn blend_with_partner_staged(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    partner: c_int,
    n: usize,
    alpha: f32,
) -> Result<CudaSlice<f32>, Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(PAIR_SRC)?)?;
    let make_state = module.load_function("make_state")?;
    let blend = module.load_function("blend")?;

    let (n_i, phase) = (n as i32, rank as f32 * 0.7);
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut state = stream.alloc_zeros::<f32>(n)?;
    let mut theirs = stream.alloc_zeros::<f32>(n)?;
    unsafe { stream.launch_builder(&make_state).arg(&mut state).arg(&n_i).arg(&phase).launch(cfg) }?;

    let bytes = n * std::mem::size_of::<f32>();
    let h_send = unsafe { result::malloc_host(bytes, 0) }?;
    let h_recv = match unsafe { result::malloc_host(bytes, 0) } {
        Ok(p) => p,
        Err(e) => {
            unsafe { result::free_host(h_send) }?;
            return Err(e.into());
        }
    };
    let send_view = unsafe { std::slice::from_raw_parts_mut(h_send as *mut f32, n) };

    // Device -> pinned, and wait for the copy engine before MPI reads the staging buffer.
    let state_ptr = state.device_ptr(&stream).0;
    let staged = unsafe { result::memcpy_dtoh_async(send_view, state_ptr, stream.cu_stream()) };
    let drained = stream.synchronize();

    let mut reqs = [MPI_REQUEST_NULL; 2];
    let rc_r = unsafe { MPI_Irecv(h_recv, n as c_int, MPI_FLOAT, partner, PAIR_TAG, comm, &mut reqs[0]) };
    let rc_s = unsafe { MPI_Isend(h_send as *const c_void, n as c_int, MPI_FLOAT, partner, PAIR_TAG, comm, &mut reqs[1]) };
    let rc_w = unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };

    // The receive is complete: pinned -> device, then wait before the staging buffers go.
    let recv_view = unsafe { std::slice::from_raw_parts(h_recv as *const f32, n) };
    let theirs_ptr = theirs.device_ptr_mut(&stream).0;
    let loaded = unsafe { result::memcpy_htod_async(theirs_ptr, recv_view, stream.cu_stream()) };
    let landed = stream.synchronize();
    let freed_send = unsafe { result::free_host(h_send) };
    let freed_recv = unsafe { result::free_host(h_recv) };

    staged?;
    drained?;
    mpi_check(rc_r, "MPI_Irecv")?;
    mpi_check(rc_s, "MPI_Isend")?;
    mpi_check(rc_w, "MPI_Waitall")?;
    loaded?;
    landed?;
    freed_send?;
    freed_recv?;

    unsafe { stream.launch_builder(&blend).arg(&mut state).arg(&theirs).arg(&n_i).arg(&alpha).launch(cfg) }?;
    stream.synchronize()?;
    Ok(state)
}
