//! case: a field snapshot is shipped to the I/O rank in two halves through one pinned staging buffer; after MPI_Isend of the first half the code calls MPI_Test once to make progress and only logs when it is not done, then enqueues cuMemcpyDtoHAsync of the second half into the same staging buffer while the first send may still read it.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const SNAP_TAG_FRONT: c_int = 90;
const SNAP_TAG_BACK: c_int = 91;

const FIELD_SRC: &str = r#"
extern "C" __global__ void advance(float* f, int n, float t) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f[i] = __sinf(0.001f * (float)i + t);
}
"#;

pub struct SnapshotStats {
    pub stalled_sends: u32,
}

pub fn snapshot_to_io_rank(
    ctx: &Arc<CudaContext>,
    n: usize,
    t: f32,
    io_rank: c_int,
) -> Result<SnapshotStats, Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let m = ctx.load_module(compile_ptx(FIELD_SRC)?)?;
    let advance = m.load_function("advance")?;

    let mut field: CudaSlice<f32> = unsafe { stream.alloc(n)? };
    let n_i = n as c_int;
    unsafe { stream.launch_builder(&advance).arg(&mut field).arg(&n_i).arg(&t).launch(LaunchConfig::for_num_elems(n as u32))? };

    let half = n / 2;
    let half_bytes = half * std::mem::size_of::<f32>();
    let staging = unsafe { result::malloc_host(half_bytes, 0)? };
    let base = field.device_ptr(&stream).0;
    let cu_stream = stream.cu_stream();
    let mut stats = SnapshotStats { stalled_sends: 0 };

    // Front half.
    unsafe { sys::cuMemcpyDtoHAsync_v2(staging, base, half_bytes, cu_stream) }.result().expect("dtoh front");
    stream.synchronize().expect("front half copied");
    let mut front_req = MPI_REQUEST_NULL;
    unsafe {
        MPI_Isend(staging as *const c_void, half as c_int, MPI_FLOAT, io_rank, SNAP_TAG_FRONT, MPI_COMM_WORLD, &mut front_req);
    }

    // Give the MPI progress engine a chance while the back half is fetched.
    let mut done: c_int = 0;
    unsafe { MPI_Test(&mut front_req, &mut done, MPI_STATUS_IGNORE) };
    if done == 0 {
        stats.stalled_sends += 1;
    }

    // Back half, reusing the staging buffer.
    let back = base + half_bytes as u64;
    unsafe { sys::cuMemcpyDtoHAsync_v2(staging, back, half_bytes, cu_stream) }.result().expect("dtoh back"); // EXPECT: missing_sync
    stream.synchronize().expect("back half copied");
    let mut back_req = MPI_REQUEST_NULL;
    unsafe {
        MPI_Isend(staging as *const c_void, half as c_int, MPI_FLOAT, io_rank, SNAP_TAG_BACK, MPI_COMM_WORLD, &mut back_req);
    }

    let mut reqs = [front_req, back_req];
    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    unsafe { result::free_host(staging) }.expect("free staging");
    Ok(stats)
}
