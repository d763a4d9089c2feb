//! case: each rank copies its device summary into a pinned buffer, fills a fixed array of `MPI_Isend` requests on it in a loop over peers, receives the peers' summaries, and after an `MPI_Barrier` (which completes no request) frees the pinned buffer with `free_host` while the sends are still outstanding (fires at the free).
//! expect: missing_sync=1

use std::error::Error;

use cudarc::driver::result as cu;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const KERNELS: &str = r#"
extern "C" __global__ void histogram(const float* x, double* bins, int nbins, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int b = min(nbins - 1, max(0, (int)(x[i] * nbins)));
        atomicAdd(&bins[b], 1.0);
    }
}
extern "C" __global__ void synth(float* x, int seed, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = (float)((i * 2654435761u + seed) & 0xffff) / 65536.0f;
}
"#;

const MAX_PEERS: usize = 64;
const NBINS: usize = 32;

pub fn run(n: usize) -> Result<Vec<f64>, Box<dyn Error>> {
    let rank = world_rank()?;
    let size = world_size()? as usize;
    assert!(size <= MAX_PEERS);

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let synth = module.load_function("synth")?;
    let hist = module.load_function("histogram")?;

    let mut x: CudaSlice<f32> = stream.alloc_zeros(n)?;
    let mut bins: CudaSlice<f64> = stream.alloc_zeros(NBINS)?;
    let (n_i, nb_i) = (n as i32, NBINS as i32);
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut s = stream.launch_builder(&synth);
    s.arg(&mut x).arg(&rank).arg(&n_i);
    unsafe { s.launch(cfg) }?;
    let mut h = stream.launch_builder(&hist);
    h.arg(&x).arg(&mut bins).arg(&nb_i).arg(&n_i);
    unsafe { h.launch(cfg) }?;

    let h_summary = unsafe { cu::malloc_host(NBINS * std::mem::size_of::<f64>(), 0) }? as *mut f64;
    let summary = unsafe { std::slice::from_raw_parts_mut(h_summary, NBINS) };
    unsafe { cu::memcpy_dtoh_async(summary, bins.device_ptr(&stream).0, stream.cu_stream()) }?;
    stream.synchronize()?;

    let mut reqs = [MPI_REQUEST_NULL; MAX_PEERS];
    let mut nreq = 0usize;
    for peer in 0..size as i32 {
        if peer == rank {
            continue;
        }
        check(unsafe {
            MPI_Isend(h_summary as *const libc::c_void, nb_i, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, &mut reqs[nreq])
        })?;
        nreq += 1;
    }

    let mut global = vec![0.0f64; NBINS];
    let mut incoming = vec![0.0f64; NBINS];
    for peer in 0..size as i32 {
        if peer == rank {
            continue;
        }
        check(unsafe {
            MPI_Recv(incoming.as_mut_ptr() as *mut libc::c_void, nb_i, MPI_DOUBLE, peer, 5, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
        })?;
        for (g, v) in global.iter_mut().zip(&incoming) {
            *g += v;
        }
    }

    check(unsafe { MPI_Barrier(MPI_COMM_WORLD) })?;
    unsafe { cu::free_host(h_summary as *mut libc::c_void) }?; // EXPECT: missing_sync
    Ok(global)
}
