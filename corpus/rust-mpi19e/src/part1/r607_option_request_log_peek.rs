//! case: a `StatsReducer` keeps its `MPI_Iallreduce` request in an `Option<MPI_Request>`; on logging steps the loop prints the pinned global-stats buffer while that reduction may still be writing it, before `complete()` takes the request and waits (fires at the host read).
//! expect: missing_sync=1

use std::error::Error;

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const KERNELS: &str = r#"
extern "C" __global__ void step_and_stats(float* x, double* stats, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        x[i] = 0.99f * x[i] + 0.01f;
        atomicAdd(&stats[0], (double)x[i]);
        atomicAdd(&stats[1], (double)x[i] * (double)x[i]);
    }
}
extern "C" __global__ void clear_stats(double* stats) {
    if (threadIdx.x < 2) stats[threadIdx.x] = 0.0;
}
"#;

const NSTATS: usize = 2;

/// Sums per-rank statistics into a global copy without blocking the time loop.
struct StatsReducer {
    pending: Option<MPI_Request>,
    local: *mut f64,
    global: *mut f64,
}

impl StatsReducer {
    fn start(&mut self) -> Result<(), MpiError> {
        self.complete()?;
        let mut req: MPI_Request = MPI_REQUEST_NULL;
        check(unsafe {
            MPI_Iallreduce(
                self.local as *const libc::c_void,
                self.global as *mut libc::c_void,
                NSTATS as i32,
                MPI_DOUBLE,
                MPI_SUM,
                MPI_COMM_WORLD,
                &mut req,
            )
        })?;
        self.pending = Some(req);
        Ok(())
    }

    fn complete(&mut self) -> Result<(), MpiError> {
        if let Some(mut req) = self.pending.take() {
            check(unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) })?;
        }
        Ok(())
    }
}

pub fn run(n: usize, steps: usize, log_every: usize) -> Result<(), Box<dyn Error>> {
    let rank = world_rank()?;
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let step_k = module.load_function("step_and_stats")?;
    let clear_k = module.load_function("clear_stats")?;

    let mut x: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut d_stats: CudaSlice<f64> = stream.alloc_zeros(NSTATS)?;
    let bytes = NSTATS * std::mem::size_of::<f64>();
    let h_local = unsafe { cu::malloc_host(bytes, 0) }? as *mut f64;
    let h_global = unsafe { cu::malloc_host(bytes, 0) }? as *mut f64;
    unsafe {
        std::ptr::write_bytes(h_local, 0, NSTATS);
        std::ptr::write_bytes(h_global, 0, NSTATS);
    }
    let mut red = StatsReducer { pending: None, local: h_local, global: h_global };
    let n_i = n as i32;

    for step in 0..steps {
        let mut c = stream.launch_builder(&clear_k);
        c.arg(&mut d_stats);
        unsafe { c.launch(LaunchConfig { grid_dim: (1, 1, 1), block_dim: (32, 1, 1), shared_mem_bytes: 0 }) }?;
        let mut s = stream.launch_builder(&step_k);
        s.arg(&mut x).arg(&mut d_stats).arg(&n_i);
        unsafe { s.launch(LaunchConfig::for_num_elems(n as u32)) }?;

        let local = unsafe { std::slice::from_raw_parts_mut(h_local, NSTATS) };
        unsafe { cu::memcpy_dtoh_async(local, d_stats.device_ptr(&stream).0, stream.cu_stream()) }?;
        stream.synchronize()?;
        red.start()?;

        if step % log_every == 0 {
            let g = unsafe { std::slice::from_raw_parts(h_global, NSTATS) };
            println!("rank {rank} step {step}: global sum {}", g[0]); // EXPECT: missing_sync
        }

        red.complete()?;
    }

    red.complete()?;
    stream.synchronize()?;
    unsafe {
        cu::free_host(h_local as *mut libc::c_void)?;
        cu::free_host(h_global as *mut libc::c_void)?;
    }
    Ok(())
}
