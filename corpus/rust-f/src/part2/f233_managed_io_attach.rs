//! case: sensor fusion on the runtime API: the ingest buffer is cudaMallocManaged and attached to the I/O stream alone (cudaStreamAttachMemAsync with cudaMemAttachSingle, then that stream synchronized), so the host fills and reads it while the filter kernel on the compute stream, which never touches it, is running
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys as dsys;
use cudarc::runtime::sys as rt;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void kalman_step(float* state, float* cov, unsigned int n, float q) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    cov[i] += q;
    state[i] *= 0.99f;
}
extern "C" __global__ void calibrate(float* samples, unsigned int n, float gain, float offset) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) samples[i] = samples[i] * gain - offset;
}
"#;

pub struct Fusion {
    io: rt::cudaStream_t,
    compute: rt::cudaStream_t,
    kalman: dsys::CUfunction,
    calibrate: dsys::CUfunction,
    ingest: *mut f32,
    ingest_len: usize,
    state: *mut c_void,
    cov: *mut c_void,
    n_state: u32,
}

fn launch(f: dsys::CUfunction, n: u32, stream: rt::cudaStream_t, params: &mut [*mut c_void]) -> Res<()> {
    unsafe { drv::launch_kernel(f, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, stream as dsys::CUstream, params) }?;
    Ok(())
}

impl Fusion {
    pub fn new(ingest_len: usize, n_state: u32) -> Res<Self> {
        unsafe { rt::cudaSetDevice(0) }.result()?;
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let kalman = unsafe { drv::module::get_function(module, CString::new("kalman_step")?) }?;
        let calibrate = unsafe { drv::module::get_function(module, CString::new("calibrate")?) }?;

        let (mut io, mut compute) = (std::ptr::null_mut(), std::ptr::null_mut());
        let mut ingest: *mut c_void = std::ptr::null_mut();
        let (mut state, mut cov) = (std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            rt::cudaStreamCreateWithFlags(&mut io, rt::cudaStreamNonBlocking).result()?;
            rt::cudaStreamCreateWithFlags(&mut compute, rt::cudaStreamNonBlocking).result()?;
            rt::cudaMallocManaged(&mut ingest, ingest_len * 4, rt::cudaMemAttachGlobal).result()?;
            // Owned by the I/O stream from now on: the host may use it whenever that stream is idle.
            rt::cudaStreamAttachMemAsync(io, ingest, 0, rt::cudaMemAttachSingle).result()?;
            rt::cudaStreamSynchronize(io).result()?;
            rt::cudaMalloc(&mut state, n_state as usize * 4).result()?;
            rt::cudaMalloc(&mut cov, n_state as usize * 4).result()?;
            rt::cudaMemsetAsync(state, 0, n_state as usize * 4, compute).result()?;
            rt::cudaMemsetAsync(cov, 0, n_state as usize * 4, compute).result()?;
        }
        Ok(Fusion { io, compute, kalman, calibrate, ingest: ingest.cast(), ingest_len, state, cov, n_state })
    }

    pub fn cycle(&mut self, raw: &[f32], gain: f32, offset: f32) -> Res<f32> {
        let (mut st, mut cv, mut ns, mut q) = (self.state as u64, self.cov as u64, self.n_state, 1e-3f32);
        let mut kp: [*mut c_void; 4] = [
            (&mut st as *mut u64).cast(),
            (&mut cv as *mut u64).cast(),
            (&mut ns as *mut u32).cast(),
            (&mut q as *mut f32).cast(),
        ];
        launch(self.kalman, self.n_state, self.compute, &mut kp)?;

        // The filter step above runs meanwhile; the ingest buffer belongs to the idle I/O stream.
        let n = raw.len().min(self.ingest_len);
        let ingest = unsafe { std::slice::from_raw_parts_mut(self.ingest, n) };
        ingest.copy_from_slice(&raw[..n]);

        let (mut s, mut nn, mut g, mut o) = (self.ingest as u64, n as u32, gain, offset);
        let mut cp: [*mut c_void; 4] = [
            (&mut s as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut g as *mut f32).cast(),
            (&mut o as *mut f32).cast(),
        ];
        launch(self.calibrate, n as u32, self.io, &mut cp)?;
        unsafe { rt::cudaStreamSynchronize(self.io) }.result()?;
        let mean = ingest.iter().sum::<f32>() / n.max(1) as f32;

        unsafe { rt::cudaStreamSynchronize(self.compute) }.result()?;
        Ok(mean)
    }
}

impl Drop for Fusion {
    fn drop(&mut self) {
        unsafe {
            rt::cudaStreamSynchronize(self.compute);
            rt::cudaStreamSynchronize(self.io);
            rt::cudaFree(self.ingest.cast());
            rt::cudaFree(self.state);
            rt::cudaFree(self.cov);
            rt::cudaStreamDestroy(self.io);
            rt::cudaStreamDestroy(self.compute);
        }
    }
}
