//! case: near miss of r311: the same receive posted before the NVRTC compile, but the cleanup branch cancels the request and completes it with `MPI_Wait` before it `cudaFree`s the receive buffer.
//! expect: none

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

use crate::ffi::{self, MPI_Comm};

const TAPER: &str = r#"
extern "C" __global__ void hann_taper(const float* incoming, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float w = 0.5f - 0.5f * cospif(2.0f * i / (n - 1));
        out[i] = w * incoming[i];
    }
}
"#;

const TAG_TRACE: c_int = 211;

fn build_taper(ctx: &Arc<CudaContext>) -> Result<CudaFunction, Box<dyn Error>> {
    let module = ctx.load_module(compile_ptx(TAPER)?)?;
    Ok(module.load_function("hann_taper")?)
}

/// Receives a seismic trace of `n` samples from `source` and returns it tapered.
pub fn receive_tapered(ctx: &Arc<CudaContext>, comm: MPI_Comm, source: c_int, n: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.new_stream()?;
    let bytes = n * std::mem::size_of::<f32>();
    let mut d_trace: *mut c_void = std::ptr::null_mut();
    let mut d_out: *mut c_void = std::ptr::null_mut();
    if unsafe { rt::cudaMalloc(&mut d_trace, bytes) } != rt::cudaError_t::cudaSuccess {
        return Err("cudaMalloc(trace) failed".into());
    }
    if unsafe { rt::cudaMalloc(&mut d_out, bytes) } != rt::cudaError_t::cudaSuccess {
        unsafe { rt::cudaFree(d_trace) };
        return Err("cudaMalloc(out) failed".into());
    }

    // Post the receive first: the trace streams in while NVRTC compiles the taper.
    let mut req = ffi::request_null();
    unsafe { ffi::MPI_Irecv(d_trace, n as c_int, ffi::dt_float(), source, TAG_TRACE, comm, &mut req) };

    let taper = match build_taper(ctx) {
        Ok(f) => f,
        Err(e) => {
            // MPI owns `d_trace` until the request is complete, cancelled or not.
            unsafe {
                ffi::MPI_Cancel(&mut req);
                ffi::MPI_Wait(&mut req, ffi::MPI_STATUS_IGNORE);
                rt::cudaFree(d_out);
                rt::cudaFree(d_trace);
            }
            return Err(e);
        }
    };

    let waited = ffi::check("MPI_Wait", unsafe { ffi::MPI_Wait(&mut req, ffi::MPI_STATUS_IGNORE) });
    let mut host = vec![0.0f32; n];
    let mut status: Result<(), Box<dyn Error>> = waited.map_err(Into::into);
    if status.is_ok() {
        let (trace_ptr, out_ptr, n_i) = (d_trace as u64, d_out as u64, n as c_int);
        let mut b = stream.launch_builder(&taper);
        b.arg(&trace_ptr).arg(&out_ptr).arg(&n_i);
        status = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }.map(|_| ()).map_err(Into::into);
        let synced = stream.synchronize();
        if status.is_ok() {
            status = synced.map_err(Into::into);
        }
        if status.is_ok() {
            let rc = unsafe { rt::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d_out, bytes, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost) };
            if rc != rt::cudaError_t::cudaSuccess {
                status = Err("cudaMemcpy(out) failed".into());
            }
        }
    }
    unsafe {
        rt::cudaFree(d_out);
        rt::cudaFree(d_trace);
    }
    status.map(|()| host)
}
