//! case: a time-step iterator drives an ocean model that receives its forcing from a coupler rank each step with a CUDA-aware `MPI_Irecv` into device memory; the author drains the CUDA stream, believing the receive runs on it, and launches the integrator that reads the forcing before `MPI_Waitall`.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, DevicePtr, DevicePtrMut, LaunchConfig, PushKernelArg, result};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm};

const OCEAN: &str = r#"
extern "C" __global__ void init_state(double* h, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] = 1.0 + 0.01 * sin(6.283185307179586 * i / n);
}
extern "C" __global__ void summarize(const double* h, double* summary, int n) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    double sum = 0.0, peak = 0.0;
    for (int i = 0; i < n; ++i) { sum += h[i]; peak = fmax(peak, fabs(h[i])); }
    summary[0] = sum / n; summary[1] = peak;
}
extern "C" __global__ void integrate(double* h, const double* forcing, double dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] += dt * (forcing[i] - 0.1 * h[i]);
}
"#;

const TAG_FORCING: c_int = 500;
const TAG_SUMMARY: c_int = 501;

/// Model time steps: `(index, time)` pairs.
pub struct Steps {
    k: usize,
    n: usize,
    t: f64,
    dt: f64,
}

impl Steps {
    pub fn new(n: usize, dt: f64) -> Self {
        Self { k: 0, n, t: 0.0, dt }
    }
}

impl Iterator for Steps {
    type Item = (usize, f64);
    fn next(&mut self) -> Option<(usize, f64)> {
        if self.k == self.n {
            return None;
        }
        let step = (self.k, self.t);
        self.k += 1;
        self.t += self.dt;
        Some(step)
    }
}

/// Runs `nsteps` coupled steps and returns the final (mean, peak) of the surface height.
pub fn run_coupled(ctx: &Arc<CudaContext>, comm: MPI_Comm, coupler: c_int, n: usize, nsteps: usize, dt: f64) -> Result<[f64; 2], Box<dyn Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(OCEAN)?)?;
    let init = module.load_function("init_state")?;
    let summarize = module.load_function("summarize")?;
    let integrate = module.load_function("integrate")?;

    let n_i = n as c_int;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut h = stream.alloc_zeros::<f64>(n)?;
    let mut forcing = stream.alloc_zeros::<f64>(n)?;
    let mut summary = stream.alloc_zeros::<f64>(2)?;
    unsafe { stream.launch_builder(&init).arg(&mut h).arg(&n_i).launch(cfg) }?;

    for (k, _t) in Steps::new(nsteps, dt) {
        unsafe { stream.launch_builder(&summarize).arg(&h).arg(&mut summary).arg(&n_i).launch(LaunchConfig::for_num_elems(1)) }?;
        stream.synchronize()?; // summary written, last step's integrate finished

        let mut reqs = [ffi::request_null(); 2];
        let f_ptr = forcing.device_ptr_mut(&stream).0 as *mut c_void;
        let s_ptr = summary.device_ptr(&stream).0 as *const c_void;
        unsafe {
            ffi::MPI_Irecv(f_ptr, n_i, ffi::dt_double(), coupler, TAG_FORCING, comm, &mut reqs[0]);
            ffi::MPI_Isend(s_ptr, 2, ffi::dt_double(), coupler, TAG_SUMMARY, comm, &mut reqs[1]);
        }

        // The GPU's copy engines deliver CUDA-aware messages: drain the stream so the forcing is in.
        let drained = stream.synchronize();
        let mut step = stream.launch_builder(&integrate);
        step.arg(&mut h).arg(&forcing).arg(&dt).arg(&n_i);
        let launched = unsafe { step.launch(cfg) }; // EXPECT: missing_sync

        let rc = unsafe { ffi::MPI_Waitall(2, reqs.as_mut_ptr(), ffi::MPI_STATUSES_IGNORE) };
        ffi::check("MPI_Waitall", rc)?;
        drained?;
        launched?;
        if k % 100 == 0 {
            log_step(k);
        }
    }

    unsafe { stream.launch_builder(&summarize).arg(&h).arg(&mut summary).arg(&n_i).launch(LaunchConfig::for_num_elems(1)) }?;
    stream.synchronize()?;
    let mut out = [0.0f64; 2];
    unsafe { result::memcpy_dtoh_sync(&mut out, summary.device_ptr(&stream).0) }?;
    Ok(out)
}

fn log_step(k: usize) {
    eprintln!("coupled step {k}");
}
