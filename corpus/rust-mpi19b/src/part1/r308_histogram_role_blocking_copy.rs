//! case: near miss of r307: the same role `match`, but all kernels run on the legacy default stream and the worker pulls its histogram back with a blocking `cuMemcpyDtoH` (ordered after them on that stream) before it waits for the token and `MPI_Send`s the host copy.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm};

pub const BINS: usize = 64;
const BLOCKS: usize = 120;
const TAG_READY: c_int = 70;
const TAG_HIST: c_int = 71;

const HIST: &str = r#"
#define BINS 64
extern "C" __global__ void synth(float* x, unsigned seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { unsigned h = (i + 1) * 2654435761u ^ seed; h ^= h >> 13; h *= 0x5bd1e995u; x[i] = (h & 0xffffff) / 16777216.0f; }
}
extern "C" __global__ void block_hist(const float* x, unsigned* rows, int n) {
    __shared__ unsigned s[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) s[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&s[min((int)(x[i] * BINS), BINS - 1)], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) rows[blockIdx.x * BINS + b] = s[b];
}
extern "C" __global__ void sum_rows(const unsigned* rows, unsigned* hist, int nrows) {
    int b = threadIdx.x;
    if (b >= BINS) return;
    unsigned acc = 0;
    for (int r = 0; r < nrows; ++r) acc += rows[r * BINS + b];
    hist[b] = acc;
}
"#;

pub enum Role {
    Leader { workers: usize },
    Worker { leader: c_int },
}

/// Histograms `n` samples per rank; the leader returns the global histogram.
pub fn global_histogram(ctx: &Arc<CudaContext>, comm: MPI_Comm, role: Role, n: usize, seed: u32) -> Result<Option<Vec<u32>>, Box<dyn Error>> {
    let stream = ctx.default_stream(); // legacy stream: blocking copies queue behind our kernels
    let module = ctx.load_module(compile_ptx(HIST)?)?;
    let synth = module.load_function("synth")?;
    let block_hist = module.load_function("block_hist")?;
    let sum_rows = module.load_function("sum_rows")?;

    let n_i = n as c_int;
    let mut samples = unsafe { stream.alloc::<f32>(n) }?;
    let mut rows = unsafe { stream.alloc::<u32>(BLOCKS * BINS) }?;
    let mut hist = unsafe { stream.alloc::<u32>(BINS) }?;
    let wide = LaunchConfig { grid_dim: (BLOCKS as u32, 1, 1), block_dim: (256, 1, 1), shared_mem_bytes: 0 };
    let nrows = BLOCKS as c_int;
    unsafe { stream.launch_builder(&synth).arg(&mut samples).arg(&seed).arg(&n_i).launch(LaunchConfig::for_num_elems(n as u32)) }?;
    unsafe { stream.launch_builder(&block_hist).arg(&samples).arg(&mut rows).arg(&n_i).launch(wide) }?;
    unsafe { stream.launch_builder(&sum_rows).arg(&rows).arg(&mut hist).arg(&nrows).launch(LaunchConfig::for_num_elems(BINS as u32)) }?;

    match role {
        Role::Worker { leader } => {
            // A blocking copy on the legacy stream waits for sum_rows before it reads `hist`.
            let mut host_hist = [0u32; BINS];
            unsafe { result::memcpy_dtoh_sync(&mut host_hist, hist.device_ptr(&stream).0) }?;
            let mut ready: c_int = 0;
            let mut token = ffi::request_null();
            unsafe { ffi::MPI_Irecv(&mut ready as *mut c_int as *mut c_void, 1, ffi::dt_int(), leader, TAG_READY, comm, &mut token) };
            // Do not flood the leader: send only once it says it is ready for us.
            ffi::check("MPI_Wait", unsafe { ffi::MPI_Wait(&mut token, ffi::MPI_STATUS_IGNORE) })?;
            let h = host_hist.as_ptr() as *const c_void;
            let rc = unsafe { ffi::MPI_Send(h, BINS as c_int, ffi::dt_unsigned(), leader, TAG_HIST, comm) };
            ffi::check("MPI_Send", rc)?;
            Ok(None)
        }
        Role::Leader { workers } => {
            let mut slots = stream.alloc_zeros::<u32>(workers * BINS)?;
            stream.synchronize()?; // `slots` is allocated and zeroed before MPI writes into it
            let base = slots.device_ptr_mut(&stream).0;
            for w in 1..=workers {
                let go: c_int = 1;
                let slot = (base + ((w - 1) * BINS * std::mem::size_of::<u32>()) as u64) as *mut c_void;
                unsafe {
                    ffi::MPI_Send(&go as *const c_int as *const c_void, 1, ffi::dt_int(), w as c_int, TAG_READY, comm);
                    ffi::MPI_Recv(slot, BINS as c_int, ffi::dt_unsigned(), w as c_int, TAG_HIST, comm, ffi::MPI_STATUS_IGNORE);
                }
            }
            // Fold the workers' rows into our histogram with the same kernel.
            let mut total = unsafe { stream.alloc::<u32>(BINS) }?;
            let wrows = workers as c_int;
            unsafe { stream.launch_builder(&sum_rows).arg(&slots).arg(&mut total).arg(&wrows).launch(LaunchConfig::for_num_elems(BINS as u32)) }?;
            // No explicit wait: the blocking copies below run after sum_rows on the legacy stream.
            let mut mine = [0u32; BINS];
            let mut others = [0u32; BINS];
            unsafe { result::memcpy_dtoh_sync(&mut mine, hist.device_ptr(&stream).0) }?;
            unsafe { result::memcpy_dtoh_sync(&mut others, total.device_ptr(&stream).0) }?;
            Ok(Some(mine.iter().zip(others.iter()).map(|(a, b)| a + b).collect()))
        }
    }
}
