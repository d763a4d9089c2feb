//! case: acoustic wave propagation through the CUDA runtime API declared in an own `extern "C"` block (kernels from a prebuilt static library); the velocity model is uploaded with `cudaMemcpyAsync` straight from a `Vec` (pageable, size known only at run time), while the snapshots come back into `cudaMallocHost` memory and are read after `cudaStreamSynchronize`
//! expect: pageable_async_copy=1

use std::ffi::c_void;
use std::ptr::null_mut;

#[allow(non_camel_case_types)]
type cudaStream_t = *mut c_void;

const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;
const CUDA_MEMCPY_DEVICE_TO_HOST: i32 = 2;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;

unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFreeHost(ptr: *mut c_void) -> i32;
    fn cudaMemsetAsync(dev_ptr: *mut c_void, value: i32, count: usize, stream: cudaStream_t) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: cudaStream_t) -> i32;
    fn cudaStreamCreateWithFlags(stream: *mut cudaStream_t, flags: u32) -> i32;
    fn cudaStreamSynchronize(stream: cudaStream_t) -> i32;
    fn cudaStreamDestroy(stream: cudaStream_t) -> i32;
}

// libwavekernels.a, built with nvcc from kernels/acoustic.cu
unsafe extern "C" {
    fn acoustic_step_launch(
        u_prev: *const f32,
        u_cur: *const f32,
        u_next: *mut f32,
        velocity: *const f32,
        nx: i32,
        nz: i32,
        dt_over_dx2: f32,
        stream: cudaStream_t,
    ) -> i32;
}

#[derive(Debug)]
pub struct CudaError(pub i32, pub &'static str);

fn check(code: i32, what: &'static str) -> Result<(), CudaError> {
    if code == 0 { Ok(()) } else { Err(CudaError(code, what)) }
}

pub struct VelocityModel {
    pub nx: usize,
    pub nz: usize,
    /// m/s, row-major, read from a SEG-Y file.
    pub values: Vec<f32>,
}

pub struct WaveSolver {
    stream: cudaStream_t,
    fields: [*mut f32; 3],
    d_velocity: *mut f32,
    h_snapshot: *mut f32,
    nx: usize,
    nz: usize,
}

impl WaveSolver {
    pub fn new(model: &VelocityModel) -> Result<Self, CudaError> {
        let cells = model.nx * model.nz;
        let bytes = cells * std::mem::size_of::<f32>();
        let mut stream: cudaStream_t = null_mut();
        let mut fields = [null_mut::<f32>(); 3];
        let mut d_velocity: *mut c_void = null_mut();
        let mut h_snapshot: *mut c_void = null_mut();
        unsafe {
            check(cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING), "stream")?;
            for f in fields.iter_mut() {
                let mut p: *mut c_void = null_mut();
                check(cudaMalloc(&mut p, bytes), "cudaMalloc field")?;
                check(cudaMemsetAsync(p, 0, bytes, stream), "zero field")?;
                *f = p as *mut f32;
            }
            check(cudaMalloc(&mut d_velocity, bytes), "cudaMalloc velocity")?;
            check(cudaMallocHost(&mut h_snapshot, bytes), "cudaMallocHost snapshot")?;
            check(
                cudaMemcpyAsync(d_velocity, model.values.as_ptr() as *const c_void, bytes, CUDA_MEMCPY_HOST_TO_DEVICE, stream), // EXPECT: pageable_async_copy
                "upload velocity",
            )?;
        }
        Ok(Self { stream, fields, d_velocity: d_velocity as *mut f32, h_snapshot: h_snapshot as *mut f32, nx: model.nx, nz: model.nz })
    }

    /// Advances `steps` time steps and returns the wavefield at the surface row.
    pub fn run(&mut self, steps: usize, dt_over_dx2: f32) -> Result<Vec<f32>, CudaError> {
        let bytes = self.nx * self.nz * std::mem::size_of::<f32>();
        for _ in 0..steps {
            let [prev, cur, next] = self.fields;
            unsafe {
                check(
                    acoustic_step_launch(prev, cur, next, self.d_velocity, self.nx as i32, self.nz as i32, dt_over_dx2, self.stream),
                    "acoustic step",
                )?;
            }
            self.fields = [cur, next, prev];
        }
        unsafe {
            check(
                cudaMemcpyAsync(self.h_snapshot as *mut c_void, self.fields[1] as *const c_void, bytes, CUDA_MEMCPY_DEVICE_TO_HOST, self.stream),
                "download snapshot",
            )?;
            check(cudaStreamSynchronize(self.stream), "sync")?;
            let snapshot = std::slice::from_raw_parts(self.h_snapshot, self.nx * self.nz);
            Ok(snapshot[..self.nx].to_vec())
        }
    }
}

impl Drop for WaveSolver {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            for f in self.fields {
                cudaFree(f as *mut c_void);
            }
            cudaFree(self.d_velocity as *mut c_void);
            cudaFreeHost(self.h_snapshot as *mut c_void);
            cudaStreamDestroy(self.stream);
        }
    }
}
