//! case: near miss of r305: the same coupled time-step iterator, but the forcing's `MPI_Irecv` is polled with `MPI_Test` in a loop until its flag says done (a diffusion kernel on the height field, which MPI does not touch, overlaps it) before the integrator reads the forcing.
//! expect: none

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
// Red-black half sweep: odd points from their even neighbours, so threads never race.
extern "C" __global__ void diffuse(double* h, double nu, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if ((i & 1) && i + 1 < n) h[i] += nu * (h[i - 1] - 2.0 * h[i] + h[i + 1]);
}
extern "C" __global__ void integrate(double* h, const double* forcing, double dt, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) h[i] += dt * (forcing[i] - 0.1 * h[i]);
}
"#;

const TAG_FORCING: c_int = 500;
const TAG_SUMMARY: c_int = 501;

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

pub fn run_coupled(ctx: &Arc<CudaContext>, comm: MPI_Comm, coupler: c_int, n: usize, nsteps: usize, dt: f64, nu: f64) -> Result<[f64; 2], Box<dyn Error>> {
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(OCEAN)?)?;
    let init = module.load_function("init_state")?;
    let summarize = module.load_function("summarize")?;
    let diffuse = module.load_function("diffuse")?;
    let integrate = module.load_function("integrate")?;

    let n_i = n as c_int;
    let cfg = LaunchConfig::for_num_elems(n as u32);
    let mut h = stream.alloc_zeros::<f64>(n)?;
    let mut forcing = stream.alloc_zeros::<f64>(n)?;
    let mut summary = stream.alloc_zeros::<f64>(2)?;
    unsafe { stream.launch_builder(&init).arg(&mut h).arg(&n_i).launch(cfg) }?;

    for (k, _t) in Steps::new(nsteps, dt) {
        unsafe { stream.launch_builder(&summarize).arg(&h).arg(&mut summary).arg(&n_i).launch(LaunchConfig::for_num_elems(1)) }?;
        stream.synchronize()?;

        let (mut forcing_req, mut summary_req) = (ffi::request_null(), ffi::request_null());
        let f_ptr = forcing.device_ptr_mut(&stream).0 as *mut c_void;
        let s_ptr = summary.device_ptr(&stream).0 as *const c_void;
        unsafe {
            ffi::MPI_Irecv(f_ptr, n_i, ffi::dt_double(), coupler, TAG_FORCING, comm, &mut forcing_req);
            ffi::MPI_Isend(s_ptr, 2, ffi::dt_double(), coupler, TAG_SUMMARY, comm, &mut summary_req);
        }

        // Diffusion does not need the forcing: let it run while the message arrives.
        let mut smooth = stream.launch_builder(&diffuse);
        smooth.arg(&mut h).arg(&nu).arg(&n_i);
        let diffused = unsafe { smooth.launch(cfg) };

        let mut arrived: c_int = 0;
        while arrived == 0 {
            unsafe { ffi::MPI_Test(&mut forcing_req, &mut arrived, ffi::MPI_STATUS_IGNORE) };
        }

        let mut step = stream.launch_builder(&integrate);
        step.arg(&mut h).arg(&forcing).arg(&dt).arg(&n_i);
        let launched = unsafe { step.launch(cfg) };

        let rc = unsafe { ffi::MPI_Wait(&mut summary_req, ffi::MPI_STATUS_IGNORE) };
        ffi::check("MPI_Wait", rc)?;
        diffused?;
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
