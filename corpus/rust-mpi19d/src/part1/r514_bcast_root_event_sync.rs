//! case: near miss of r513: the root draws the embedding table with a kernel, records an event after it and synchronizes that event inside the root branch before the collective `MPI_Bcast`; every other rank has only the zero-fill, which was waited for before the branch, so no path hands MPI memory with work in flight.
//! expect: none

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::bindings::*;

const EMBED_SRC: &str = r#"
extern "C" __global__ void draw_table(float* table, int rows, int dim, unsigned int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * dim) {
        unsigned int h = (seed ^ (unsigned int)i) * 747796405u + 2891336453u;
        h = ((h >> ((h >> 28) + 4)) ^ h) * 277803737u;
        table[i] = ((float)(h >> 8) / 16777216.0f - 0.5f) * 0.02f;
    }
}

extern "C" __global__ void gather_rows(const float* table, const int* ids, float* out, int n_ids, int dim) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_ids * dim) out[i] = table[ids[i / dim] * dim + (i % dim)];
}

extern "C" __global__ void iota_ids(int* ids, int n_ids, int rows) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_ids) ids[i] = (i * 7) % rows;
}
"#;

/// Builds an embedding table of `rows` x `dim` on `root`, broadcasts it, and looks up a
/// fixed batch of `n_ids` rows on every rank. Returns (table, looked-up rows).
pub fn broadcast_embedding(
    ctx: &Arc<CudaContext>,
    comm: MPI_Comm,
    root: c_int,
    rows: usize,
    dim: usize,
    n_ids: usize,
) -> Result<(CudaSlice<f32>, CudaSlice<f32>), Box<dyn std::error::Error>> {
    let (rank, _size) = rank_and_size(comm)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(EMBED_SRC)?)?;
    let draw = module.load_function("draw_table")?;
    let gather = module.load_function("gather_rows")?;
    let iota = module.load_function("iota_ids")?;

    let (rows_i, dim_i, n_ids_i) = (rows as i32, dim as i32, n_ids as i32);
    let mut table = stream.alloc_zeros::<f32>(rows * dim)?;
    let mut ids = stream.alloc_zeros::<i32>(n_ids)?;
    let mut out = stream.alloc_zeros::<f32>(n_ids * dim)?;
    stream.synchronize()?;

    if rank == root {
        let seed = 0x5eed_u32;
        unsafe {
            stream
                .launch_builder(&draw)
                .arg(&mut table)
                .arg(&rows_i)
                .arg(&dim_i)
                .arg(&seed)
                .launch(LaunchConfig::for_num_elems((rows * dim) as u32))
        }?;
        // Recorded after the draw: waiting on it waits for the table.
        let drawn = stream.record_event(None)?;
        drawn.synchronize()?;
    }

    let table_ptr = table.device_ptr_mut(&stream).0;
    let rc = unsafe { MPI_Bcast(table_ptr as *mut c_void, (rows * dim) as c_int, MPI_FLOAT, root, comm) };
    mpi_check(rc, "MPI_Bcast")?;

    // The blocking broadcast has returned: the table is final on every rank.
    unsafe { stream.launch_builder(&iota).arg(&mut ids).arg(&n_ids_i).arg(&rows_i).launch(LaunchConfig::for_num_elems(n_ids as u32)) }?;
    unsafe {
        stream
            .launch_builder(&gather)
            .arg(&table)
            .arg(&ids)
            .arg(&mut out)
            .arg(&n_ids_i)
            .arg(&dim_i)
            .launch(LaunchConfig::for_num_elems((n_ids * dim) as u32))
    }?;
    stream.synchronize()?;
    Ok((table, out))
}
