//! case: near miss: a mixture-of-experts token shuffle synchronizes before every blocking collective: the stream before MPI_Bcast of the router weights (copied from pinned memory on the root), an event recorded after the routing kernel before MPI_Alltoall of the cuMemAlloc'd token buffers, and the stream after cuMemcpyDtoHAsync of the expert counts into pinned memory before MPI_Reduce.
//! expect: none

use std::ffi::{c_int, c_void};
use std::mem::MaybeUninit;
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, CudaSlice, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const MOE_SRC: &str = r#"
extern "C" __global__ void make_tokens(float* t, int n, int rank) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = (float)((i * 7 + rank) % 23) * 0.1f;
}
// Each of `world` destination slots gets `per` tokens, scaled by the router weight of that slot.
extern "C" __global__ void route(const float* tok, const float* router, float* send, int per, int world) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < per * world) send[i] = tok[i] * router[i / per];
}
extern "C" __global__ void expert(const float* recv, float* out, int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = recv[i];
        out[i] = v > 0.f ? v * 1.5f : 0.f;
        if (v > 1.0f) atomicAdd(&counts[0], 1); else atomicAdd(&counts[1], 1);
    }
}
"#;

fn alloc_raw(bytes: usize) -> sys::CUdeviceptr {
    let mut p = MaybeUninit::<sys::CUdeviceptr>::uninit();
    unsafe {
        sys::cuMemAlloc_v2(p.as_mut_ptr(), bytes).result().expect("cuMemAlloc_v2");
        p.assume_init()
    }
}

/// Returns the global [hot, cold] token counts on rank 0 (zeros elsewhere) and this rank's expert output.
pub fn moe_shuffle(
    ctx: &Arc<CudaContext>,
    rank: c_int,
    world: c_int,
    per: usize,
) -> Result<([i32; 2], CudaSlice<f32>), Box<dyn std::error::Error>> {
    let stream = ctx.new_stream()?;
    let m = ctx.load_module(compile_ptx(MOE_SRC)?)?;
    let (make, route, expert) = (m.load_function("make_tokens")?, m.load_function("route")?, m.load_function("expert")?);

    let w = world as usize;
    let n = per * w;
    let (n_i, per_i) = (n as c_int, per as c_int);
    let cfg = LaunchConfig::for_num_elems(n as u32);

    let mut router: CudaSlice<f32> = unsafe { stream.alloc(w)? };
    let mut tokens: CudaSlice<f32> = unsafe { stream.alloc(n)? };
    let mut out: CudaSlice<f32> = unsafe { stream.alloc(n)? };
    let mut counts: CudaSlice<i32> = stream.alloc_zeros(2)?;
    unsafe { stream.launch_builder(&make).arg(&mut tokens).arg(&n_i).arg(&rank).launch(cfg)? };

    let send_tok = alloc_raw(n * 4);
    let recv_tok = alloc_raw(n * 4);
    let pinned_router = unsafe { result::malloc_host(w * 4, 0) }.expect("pinned router") as *mut f32;
    let pinned_counts = unsafe { result::malloc_host(2 * 4, 0) }.expect("pinned counts") as *mut i32;

    // Router weights come from rank 0.
    let router_ptr = router.device_ptr_mut(&stream).0;
    if rank == 0 {
        let host = unsafe { std::slice::from_raw_parts_mut(pinned_router, w) };
        for (k, v) in host.iter_mut().enumerate() {
            *v = 1.0 / (1.0 + k as f32);
        }
        unsafe { result::memcpy_htod_async(router_ptr, &*host, stream.cu_stream()) }.expect("router upload");
    }
    stream.synchronize().expect("router upload / setup");
    unsafe { MPI_Bcast(router_ptr as *mut c_void, world, MPI_FLOAT, 0, MPI_COMM_WORLD) };

    let mut r = stream.launch_builder(&route);
    r.arg(&tokens).arg(&router).arg(&send_tok).arg(&per_i).arg(&world);
    unsafe { r.launch(cfg) }.expect("route");
    let routed = stream.record_event(None).expect("record routed");
    routed.synchronize().expect("routing kernel");

    unsafe {
        MPI_Alltoall(send_tok as *const c_void, per_i, MPI_FLOAT, recv_tok as *mut c_void, per_i, MPI_FLOAT, MPI_COMM_WORLD);
    }

    let mut e = stream.launch_builder(&expert);
    e.arg(&recv_tok).arg(&mut out).arg(&mut counts).arg(&n_i);
    unsafe { e.launch(cfg) }.expect("expert");
    let counts_dev = counts.device_ptr(&stream).0;
    unsafe { sys::cuMemcpyDtoHAsync_v2(pinned_counts as *mut c_void, counts_dev, 2 * 4, stream.cu_stream()) }
        .result()
        .expect("counts back");
    stream.synchronize().expect("expert + counts");

    let mut totals = [0i32; 2];
    unsafe { MPI_Reduce(pinned_counts as *const c_void, totals.as_mut_ptr() as *mut c_void, 2, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD) };

    unsafe {
        sys::cuMemFree_v2(send_tok).result().expect("free send tokens");
        sys::cuMemFree_v2(recv_tok).result().expect("free recv tokens");
        result::free_host(pinned_router as *mut c_void).expect("free pinned router");
        result::free_host(pinned_counts as *mut c_void).expect("free pinned counts");
    }
    Ok((totals, out))
}
