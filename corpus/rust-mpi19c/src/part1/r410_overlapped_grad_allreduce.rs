//! case: near miss of r403: layer-wise gradient averaging with double-buffered gradients (two cudaMalloc'd buffers chosen by layer parity); each layer's buffer is reduced in place by MPI_Allreduce only after an event recorded behind its gradient kernel is synchronized, while the next layer's gradient kernel, launched just before the allreduce, writes the other buffer.
//! expect: none

use std::ffi::{c_int, c_void};
use std::ptr;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

use crate::mpi_sys::*;

const GRAD_SRC: &str = r#"
extern "C" __global__ void fill(float* x, int n, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = scale * (float)((i * 13) % 29 - 14);
}
extern "C" __global__ void weight_grad(const float* act, const float* err, float* g, int d) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < d * d) g[i] = err[i / d] * act[i % d];
}
extern "C" __global__ void sgd(float* w, const float* g, float lr, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) w[i] -= lr * g[i];
}
"#;

pub fn train_step_overlapped(
    ctx: &Arc<CudaContext>,
    num_layers: usize,
    d: usize,
    lr: f32,
) -> Result<Vec<CudaSlice<f32>>, Box<dyn std::error::Error>> {
    if num_layers == 0 {
        return Ok(Vec::new());
    }
    let mut world: c_int = 1;
    unsafe { MPI_Comm_size(MPI_COMM_WORLD, &mut world) };

    let stream = ctx.new_stream()?;
    let m = ctx.load_module(compile_ptx(GRAD_SRC)?)?;
    let (fill, wgrad, sgd) = (m.load_function("fill")?, m.load_function("weight_grad")?, m.load_function("sgd")?);

    let (dd, d_i) = (d * d, d as c_int);
    let dd_i = dd as c_int;
    let (cfg_d, cfg_dd) = (LaunchConfig::for_num_elems(d as u32), LaunchConfig::for_num_elems(dd as u32));

    let mut weights = Vec::new();
    let mut acts = Vec::new();
    let mut errs = Vec::new();
    for l in 0..num_layers {
        let (mut w, mut a, mut e) = unsafe { (stream.alloc::<f32>(dd)?, stream.alloc::<f32>(d)?, stream.alloc::<f32>(d)?) };
        let (sw, sa, se) = (0.02f32, 0.1f32, 0.01f32 * (l + 1) as f32);
        unsafe {
            stream.launch_builder(&fill).arg(&mut w).arg(&dd_i).arg(&sw).launch(cfg_dd)?;
            stream.launch_builder(&fill).arg(&mut a).arg(&d_i).arg(&sa).launch(cfg_d)?;
            stream.launch_builder(&fill).arg(&mut e).arg(&d_i).arg(&se).launch(cfg_d)?;
        }
        weights.push(w);
        acts.push(a);
        errs.push(e);
    }

    // Double-buffered gradients: layer l uses grads[l % 2].
    let bytes = dd * std::mem::size_of::<f32>();
    let mut raw: [*mut c_void; 2] = [ptr::null_mut(); 2];
    for slot in raw.iter_mut() {
        let e = unsafe { rt::cudaMalloc(slot, bytes) };
        assert_eq!(e, rt::cudaError_t::cudaSuccess, "cudaMalloc gradient buffer");
    }
    let grads: [u64; 2] = [raw[0] as u64, raw[1] as u64];
    let step = lr / world as f32;

    let top = num_layers - 1;
    unsafe { stream.launch_builder(&wgrad).arg(&acts[top]).arg(&errs[top]).arg(&grads[top % 2]).arg(&d_i).launch(cfg_dd) }
        .expect("weight_grad top");

    for l in (0..num_layers).rev() {
        // Everything enqueued so far, including layer l's gradient kernel, is done after this.
        let done = stream.record_event(None).expect("record");
        done.synchronize().expect("gradient of layer l");

        if l > 0 {
            // Next layer's gradient goes to the other buffer and overlaps the allreduce.
            let n = l - 1;
            unsafe { stream.launch_builder(&wgrad).arg(&acts[n]).arg(&errs[n]).arg(&grads[n % 2]).arg(&d_i).launch(cfg_dd) }
                .expect("weight_grad");
        }

        let g = grads[l % 2];
        unsafe { MPI_Allreduce(MPI_IN_PLACE, g as *mut c_void, dd_i, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) };

        let mut u = stream.launch_builder(&sgd);
        u.arg(&mut weights[l]).arg(&grads[l % 2]).arg(&step).arg(&dd_i);
        unsafe { u.launch(cfg_dd) }.expect("sgd");
    }

    stream.synchronize().expect("optimizer");
    for p in raw {
        unsafe { rt::cudaFree(p) };
    }
    Ok(weights)
}
