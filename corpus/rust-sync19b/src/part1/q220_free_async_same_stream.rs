//! case: a stream-ordered scratch buffer (`cuMemAllocAsync`) is released with `cuMemFreeAsync` on the stream its two kernels run on, before the stream is synchronized
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::result::stream::StreamKind;
use cudarc::driver::{result, sys, CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void diff2(const float* x, float* d, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) d[i] = (i > 0 && i < n - 1) ? x[i - 1] - 2.0f * x[i] + x[i + 1] : 0.0f;
}

extern "C" __global__ void sharpen(const float* x, const float* d, float* y, float amount, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] - amount * d[i];
}
"#;

/// Memory from the stream-ordered allocator, given back in stream order.
struct StreamScratch {
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl StreamScratch {
    fn new(bytes: usize, stream: sys::CUstream) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream).result()? };
        Ok(Self { ptr, stream })
    }
}

impl Drop for StreamScratch {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeAsync(self.ptr, self.stream);
        }
    }
}

struct Dev(sys::CUdeviceptr);

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

struct Stream(sys::CUstream);

impl Drop for Stream {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::destroy(self.0);
        }
    }
}

fn launch(f: &CudaFunction, n: usize, stream: sys::CUstream, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { result::launch_kernel(f.cu_function(), ((n as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, stream, args) }
}

pub fn sharpen_1d(x: &[f32], amount: f32) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = x.len();
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let diff2 = module.load_function("diff2")?;
    let sharpen = module.load_function("sharpen")?;
    let stream = Stream(result::stream::create(StreamKind::Default)?);

    let d_x = Dev(unsafe { result::malloc_sync(n * 4)? });
    let d_y = Dev(unsafe { result::malloc_sync(n * 4)? });
    unsafe { result::memcpy_htod_sync(d_x.0, x)? };

    let scratch = StreamScratch::new(n * 4, stream.0)?;
    let queued = (|| -> Result<(), DriverError> {
        let (mut xp, mut dp, mut yp) = (d_x.0, scratch.ptr, d_y.0);
        let (mut amt, mut n_i) = (amount, n as i32);
        let mut a1: [*mut c_void; 3] = [
            &mut xp as *mut _ as *mut c_void,
            &mut dp as *mut _ as *mut c_void,
            &mut n_i as *mut _ as *mut c_void,
        ];
        launch(&diff2, n, stream.0, &mut a1)?;
        let mut a2: [*mut c_void; 5] = [
            &mut xp as *mut _ as *mut c_void,
            &mut dp as *mut _ as *mut c_void,
            &mut yp as *mut _ as *mut c_void,
            &mut amt as *mut _ as *mut c_void,
            &mut n_i as *mut _ as *mut c_void,
        ];
        launch(&sharpen, n, stream.0, &mut a2)
    })();
    // stream-ordered: the free runs after both kernels on this stream
    drop(scratch);

    let waited = unsafe { result::stream::synchronize(stream.0) };
    queued?;
    waited?;
    let mut y = vec![0.0f32; n];
    unsafe { result::memcpy_dtoh_sync(&mut y, d_y.0)? };
    Ok(y)
}
