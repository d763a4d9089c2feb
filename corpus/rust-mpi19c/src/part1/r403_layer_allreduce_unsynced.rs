//! case: data-parallel backward pass over the layers of an MLP (deltas ping-pong between two device buffers); each layer's weight gradient is averaged with an in-place MPI_Allreduce on its device buffer right after the backward kernel that writes it is launched, with no stream synchronize in between.
//! expect: missing_sync=1

use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaSlice, DevicePtrMut, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;

use crate::mpi_sys::*;

const BACKWARD_SRC: &str = r#"
extern "C" __global__ void fill(float* x, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = scale * (float)((i * 37) % 101 - 50);
}
// Toy layer of width `d`: grad_w = delta_out (outer) act, delta_in = W^T delta_out.
extern "C" __global__ void layer_backward(const float* w, const float* act,
                                          const float* delta_out, float* delta_in,
                                          float* grad_w, int d) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= d) return;
    float acc = 0.f;
    for (int c = 0; c < d; ++c) {
        grad_w[r * d + c] = delta_out[r] * act[c];
        acc += w[c * d + r] * delta_out[c];
    }
    delta_in[r] = acc;
}
extern "C" __global__ void sgd(float* w, const float* g, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
"#;

pub fn backward_allreduce(
    ctx: &Arc<CudaContext>,
    num_layers: usize,
    d: usize,
    lr: f32,
) -> Result<Vec<CudaSlice<f32>>, Box<dyn std::error::Error>> {
    let mut world: c_int = 1;
    unsafe { MPI_Comm_size(MPI_COMM_WORLD, &mut world) };

    let stream = ctx.new_stream()?;
    let m = ctx.load_module(compile_ptx(BACKWARD_SRC)?)?;
    let fill = m.load_function("fill")?;
    let backward = m.load_function("layer_backward")?;
    let sgd = m.load_function("sgd")?;

    let (d_i, dd) = (d as c_int, d * d);
    let dd_i = dd as c_int;
    let cfg_d = LaunchConfig::for_num_elems(d as u32);
    let cfg_dd = LaunchConfig::for_num_elems(dd as u32);

    let mut weights = Vec::with_capacity(num_layers);
    let mut acts = Vec::with_capacity(num_layers);
    let mut grads = Vec::with_capacity(num_layers);
    for l in 0..num_layers {
        let mut w: CudaSlice<f32> = unsafe { stream.alloc(dd)? };
        let mut a: CudaSlice<f32> = unsafe { stream.alloc(d)? };
        let (sw, sa) = (0.01f32 / (l + 1) as f32, 0.1f32);
        unsafe { stream.launch_builder(&fill).arg(&mut w).arg(&dd_i).arg(&sw).launch(cfg_dd)? };
        unsafe { stream.launch_builder(&fill).arg(&mut a).arg(&d_i).arg(&sa).launch(cfg_d)? };
        weights.push(w);
        acts.push(a);
        grads.push(unsafe { stream.alloc::<f32>(dd)? }); // written by layer_backward
    }

    // Ping-pong buffers for the back-propagated delta.
    let mut deltas: [CudaSlice<f32>; 2] = [stream.alloc_zeros(d)?, stream.alloc_zeros(d)?];
    let loss_scale = 1.0f32;
    unsafe { stream.launch_builder(&fill).arg(&mut deltas[num_layers % 2]).arg(&d_i).arg(&loss_scale).launch(cfg_d)? };

    let step = lr / world as f32;
    for l in (0..num_layers).rev() {
        let (lo, hi) = deltas.split_at_mut(1);
        let (delta_in, delta_out) = if l % 2 == 0 { (&mut lo[0], &hi[0]) } else { (&mut hi[0], &lo[0]) };

        let mut b = stream.launch_builder(&backward);
        b.arg(&weights[l]).arg(&acts[l]).arg(delta_out).arg(delta_in).arg(&mut grads[l]).arg(&d_i);
        unsafe { b.launch(cfg_d)? };

        let g = grads[l].device_ptr_mut(&stream).0;
        unsafe {
            MPI_Allreduce(MPI_IN_PLACE, g as *mut c_void, dd_i, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD); // EXPECT: missing_sync
        }

        let mut u = stream.launch_builder(&sgd);
        u.arg(&mut weights[l]).arg(&grads[l]).arg(&step).arg(&dd_i);
        unsafe { u.launch(cfg_dd)? };
    }

    stream.synchronize()?;
    Ok(weights)
}
