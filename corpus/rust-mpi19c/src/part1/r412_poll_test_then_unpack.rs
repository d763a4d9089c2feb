//! case: near miss of r405/r406: a particle-migration step posts MPI_Irecv of incoming particles into a malloc_sync'd device buffer, runs the local push kernel on other memory meanwhile, and polls MPI_Test in a while loop until the flag is set before launching (result::launch_kernel on the default stream) the kernel that merges the received particles.
//! expect: none

use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const MIGRATE_TAG: c_int = 77;

const PARTICLE_SRC: &str = r#"
extern "C" __global__ void seed(float4* p, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = make_float4((float)i, (float)rank, 0.f, 1.f);
}
extern "C" __global__ void push(float4* p, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { p[i].x += dt * p[i].z; p[i].y += dt * p[i].w; }
}
extern "C" __global__ void merge(float4* p, int n_local, const float4* incoming, int n_in) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n_in) p[n_local + i] = incoming[i];
}
"#;

fn grid(n: usize) -> (c_uint, c_uint, c_uint) {
    (((n + 127) / 128).max(1) as c_uint, 1, 1)
}

/// Receives `n_in` particles from `from` and appends them after the `n_local` resident ones.
/// Returns the number of times MPI_Test was polled before the message was in.
pub fn migrate_in(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    from: c_int,
    n_local: usize,
    n_in: usize,
    dt: f32,
) -> Result<u64, Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let m = ctx.load_module(compile_ptx(PARTICLE_SRC)?)?;
    let seed = m.load_function("seed")?.cu_function();
    let push = m.load_function("push")?.cu_function();
    let merge = m.load_function("merge")?.cu_function();
    let cs = stream.cu_stream();

    let p4 = 4 * std::mem::size_of::<f32>();
    let mut particles = unsafe { result::malloc_sync((n_local + n_in) * p4)? };
    let mut incoming = unsafe { result::malloc_sync(n_in * p4) }.expect("incoming buffer");

    let (mut nl_i, mut nin_i, mut rank_i, mut dt_v) = (n_local as c_int, n_in as c_int, rank, dt);

    let mut req = MPI_REQUEST_NULL;
    unsafe {
        MPI_Irecv(incoming as *mut c_void, nin_i * 4, MPI_FLOAT, from, MIGRATE_TAG, MPI_COMM_WORLD, &mut req);
    }

    // Local work on the resident particles only.
    unsafe {
        let mut a: [*mut c_void; 3] = [
            &mut particles as *mut sys::CUdeviceptr as *mut c_void,
            &mut nl_i as *mut c_int as *mut c_void,
            &mut rank_i as *mut c_int as *mut c_void,
        ];
        result::launch_kernel(seed, grid(n_local), (128, 1, 1), 0, cs, &mut a).expect("seed");
        let mut a: [*mut c_void; 3] = [
            &mut particles as *mut sys::CUdeviceptr as *mut c_void,
            &mut nl_i as *mut c_int as *mut c_void,
            &mut dt_v as *mut f32 as *mut c_void,
        ];
        result::launch_kernel(push, grid(n_local), (128, 1, 1), 0, cs, &mut a).expect("push");
    }

    let mut polls = 0u64;
    let mut arrived: c_int = 0;
    while arrived == 0 {
        unsafe { MPI_Test(&mut req, &mut arrived, MPI_STATUS_IGNORE) };
        polls += 1;
    }

    unsafe {
        let mut a: [*mut c_void; 4] = [
            &mut particles as *mut sys::CUdeviceptr as *mut c_void,
            &mut nl_i as *mut c_int as *mut c_void,
            &mut incoming as *mut sys::CUdeviceptr as *mut c_void,
            &mut nin_i as *mut c_int as *mut c_void,
        ];
        result::launch_kernel(merge, grid(n_in), (128, 1, 1), 0, cs, &mut a).expect("merge");
    }

    stream.synchronize().expect("migration kernels");
    unsafe {
        result::free_sync(incoming).expect("free incoming");
        result::free_sync(particles).expect("free particles");
    }
    Ok(polls)
}
