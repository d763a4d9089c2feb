//! case: a CUDA-runtime-API port of a saxpy batch job: `cudaStreamNonBlocking` stream, `cudaMallocHost` staging in both directions, `cudaMemcpyAsync` on that stream, the kernel (NVRTC source) launched with `cuLaunchKernel` on the same stream, `cudaStreamSynchronize` before the host reads, and each buffer released by its own allocator's free
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind};

const SAXPY_SRC: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

struct HostBuf(*mut f32, usize);
struct DevBuf(*mut c_void);

impl HostBuf {
    fn new(len: usize) -> Result<Self, rt::cudaError_t> {
        let mut p: *mut c_void = null_mut();
        match unsafe { rt::cudaMallocHost(&mut p, len * 4) } {
            rt::cudaError_t::cudaSuccess => Ok(Self(p.cast(), len)),
            e => Err(e),
        }
    }
    fn slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.0, self.1) }
    }
}

impl Drop for HostBuf {
    fn drop(&mut self) {
        unsafe { rt::cudaFreeHost(self.0.cast()) };
    }
}

impl DevBuf {
    fn new(bytes: usize) -> Result<Self, rt::cudaError_t> {
        let mut p: *mut c_void = null_mut();
        match unsafe { rt::cudaMalloc(&mut p, bytes) } {
            rt::cudaError_t::cudaSuccess => Ok(Self(p)),
            e => Err(e),
        }
    }
}

impl Drop for DevBuf {
    fn drop(&mut self) {
        unsafe { rt::cudaFree(self.0) };
    }
}

pub fn saxpy_batches(a: f32, batches: usize, n: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(SAXPY_SRC)?)?.load_function("saxpy")?;
    let mut stream: rt::cudaStream_t = null_mut();
    unsafe { rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()? };

    let map = |e: rt::cudaError_t| format!("{e:?}");
    let mut hx = HostBuf::new(n).map_err(map)?;
    let mut hy = HostBuf::new(n).map_err(map)?;
    let dx = DevBuf::new(n * 4).map_err(map)?;
    let dy = DevBuf::new(n * 4).map_err(map)?;
    let mut sums = Vec::with_capacity(batches);

    for b in 0..batches {
        hx.slice().iter_mut().enumerate().for_each(|(i, v)| *v = (i + b) as f32 * 1e-3);
        hy.slice().fill(1.0);
        unsafe {
            rt::cudaMemcpyAsync(dx.0, hx.0.cast(), n * 4, cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
            rt::cudaMemcpyAsync(dy.0, hy.0.cast(), n * 4, cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
            let (mut aa, mut x, mut y, mut nn) = (a, dx.0 as drv::CUdeviceptr, dy.0 as drv::CUdeviceptr, n as u32);
            let mut args = [
                (&mut aa) as *mut f32 as *mut c_void,
                (&mut x) as *mut drv::CUdeviceptr as *mut c_void,
                (&mut y) as *mut drv::CUdeviceptr as *mut c_void,
                (&mut nn) as *mut u32 as *mut c_void,
            ];
            drv::cuLaunchKernel(f.cu_function(), nn.div_ceil(256), 1, 1, 256, 1, 1, 0, stream as drv::CUstream, args.as_mut_ptr(), null_mut())
                .result()?;
            rt::cudaMemcpyAsync(hy.0.cast(), dy.0, n * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream).result()?;
            rt::cudaStreamSynchronize(stream).result()?;
        }
        sums.push(hy.slice().iter().sum::<f32>());
    }
    unsafe { rt::cudaStreamDestroy(stream).result()? };
    Ok(sums)
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    println!("{:?}", saxpy_batches(2.0, 4, 1 << 20)?);
    Ok(())
}
