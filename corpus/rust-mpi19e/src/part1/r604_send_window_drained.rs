//! case: near miss of r603: the same `SendWindow` of `MPI_Isend` requests on the device boundary buffer, but `drain()` (an `is_empty` guard, then `MPI_Waitall`) runs before the next `pack_boundary` kernel rewrites the buffer, and the `advance` kernel that overlaps the sends touches only the state array.
//! expect: none

use std::error::Error;

use cudarc::driver::{
    CudaContext, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi::*;

const KERNELS: &str = r#"
extern "C" __global__ void pack_boundary(const float* state, const int* idx, float* boundary, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) boundary[i] = state[idx[i]];
}
extern "C" __global__ void advance(float* state, float dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) state[i] += dt * (1.0f - state[i]);
}
"#;

/// Bounds the number of sends in flight: the MPI library's eager buffers are limited.
struct SendWindow {
    reqs: Vec<MPI_Request>,
    cap: usize,
}

impl SendWindow {
    fn new(cap: usize) -> Self {
        SendWindow { reqs: Vec::with_capacity(cap), cap }
    }

    fn push(&mut self, req: MPI_Request) -> Result<(), MpiError> {
        self.reqs.push(req);
        if self.reqs.len() == self.cap {
            let rc = unsafe {
                MPI_Waitall(
                    self.reqs.len() as i32,
                    self.reqs.as_mut_ptr(),
                    MPI_STATUSES_IGNORE,
                )
            };
            self.reqs.clear();
            check(rc)?;
        }
        Ok(())
    }

    fn drain(&mut self) -> Result<(), MpiError> {
        if self.reqs.is_empty() {
            return Ok(());
        }
        let rc = unsafe {
            MPI_Waitall(
                self.reqs.len() as i32,
                self.reqs.as_mut_ptr(),
                MPI_STATUSES_IGNORE,
            )
        };
        self.reqs.clear();
        check(rc)
    }
}

fn isend_to(buf: u64, n: i32, dest: i32, tag: i32) -> Result<MPI_Request, MpiError> {
    let mut req: MPI_Request = MPI_REQUEST_NULL;
    check(unsafe {
        MPI_Isend(buf as *const libc::c_void, n, MPI_FLOAT, dest, tag, MPI_COMM_WORLD, &mut req)
    })?;
    Ok(req)
}

pub fn run(neighbours: &[i32], boundary_idx: &[i32], n_state: usize) -> Result<(), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS)?)?;
    let pack = module.load_function("pack_boundary")?;
    let advance = module.load_function("advance")?;

    let nb = boundary_idx.len();
    let mut state: CudaSlice<f32> = stream.alloc_zeros(n_state)?;
    let mut h_idx = unsafe { ctx.alloc_pinned::<i32>(nb) }?;
    h_idx.as_mut_slice()?.copy_from_slice(boundary_idx);
    let idx: CudaSlice<i32> = stream.clone_htod(&h_idx)?;
    let mut boundary: CudaSlice<f32> = stream.alloc_zeros(nb)?;
    let (nb_i, ns_i) = (nb as i32, n_state as i32);
    let dt = 0.01f32;

    let mut p = stream.launch_builder(&pack);
    p.arg(&state).arg(&idx).arg(&mut boundary).arg(&nb_i);
    unsafe { p.launch(LaunchConfig::for_num_elems(nb as u32)) }?;
    stream.synchronize()?;

    let mut window = SendWindow::new(4);
    let bptr = boundary.device_ptr(&stream).0;
    for (k, &dest) in neighbours.iter().enumerate() {
        let req = isend_to(bptr, nb_i, dest, 100 + k as i32)?;
        window.push(req)?;
    }

    let mut a = stream.launch_builder(&advance);
    a.arg(&mut state).arg(&dt).arg(&ns_i);
    unsafe { a.launch(LaunchConfig::for_num_elems(n_state as u32)) }?;

    // Every neighbour must have its copy before the boundary is repacked.
    window.drain()?;

    let mut p2 = stream.launch_builder(&pack);
    p2.arg(&state).arg(&idx).arg(&mut boundary).arg(&nb_i);
    unsafe { p2.launch(LaunchConfig::for_num_elems(nb as u32)) }?;
    stream.synchronize()?;
    let out = stream.clone_dtoh(&boundary)?;
    println!("boundary[0] = {}", out.first().copied().unwrap_or(0.0));
    Ok(())
}
