//! case: near miss: a kernel runs on cudarc's default stream (the legacy null stream), a blocking memcpy_dtoh_sync on that stream copies its per-bucket counts into a Vec, and the Vec is gathered to the root with MPI_Gather; the blocking copy already waited for the kernel.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaSlice, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const BUCKET_SRC: &str = r#"
extern "C" __global__ void bucket_counts(const unsigned int* __restrict__ keys, unsigned int* __restrict__ counts,
                                         int n, int shift, int n_buckets)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned int b = (keys[i] >> shift) % (unsigned int)n_buckets;
        atomicAdd(&counts[b], 1u);
    }
}
"#;

/// Sample-sort splitter selection: every rank histograms its keys, the root gathers all
/// histograms. Returns the gathered table on the root, an empty Vec elsewhere.
pub fn gather_bucket_histograms(
    ctx: &Arc<CudaContext>,
    keys: &CudaSlice<u32>,
    n_buckets: usize,
    shift: i32,
    root: c_int,
) -> Result<Vec<u32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let ptx = compile_ptx(BUCKET_SRC)?;
    let module = ctx.load_module(ptx)?;
    let bucket = module.load_function("bucket_counts")?;

    let mut d_counts = stream.alloc_zeros::<u32>(n_buckets)?;
    let n = keys.len() as i32;
    let nb = n_buckets as i32;
    let mut b = stream.launch_builder(&bucket);
    b.arg(keys).arg(&mut d_counts).arg(&n).arg(&shift).arg(&nb);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32))? };

    // Blocking copy on the legacy stream: returns once the kernel and the copy are done.
    let mut counts = vec![0u32; n_buckets];
    let src = d_counts.device_ptr(&stream).0;
    unsafe { result::memcpy_dtoh_sync(&mut counts, src)? };

    let rank = world_rank();
    let mut table = if rank == root { vec![0u32; n_buckets * world_size() as usize] } else { Vec::new() };
    let rc = unsafe {
        MPI_Gather(
            counts.as_ptr() as *const c_void, nb, MPI_UNSIGNED,
            table.as_mut_ptr() as *mut c_void, nb, MPI_UNSIGNED,
            root, MPI_COMM_WORLD,
        )
    };
    mpi_check(rc, "MPI_Gather");
    Ok(table)
}
