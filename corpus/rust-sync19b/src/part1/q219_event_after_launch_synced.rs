//! case: a timed kernel records `stop` after the launch and synchronizes on it before freeing the kernel's input
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void transpose(const float* in, float* out, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    int r = blockIdx.y * blockDim.y + threadIdx.y;
    if (r < rows && c < cols) out[c * rows + r] = in[r * cols + c];
}
"#;

struct Event(sys::CUevent);

impl Event {
    fn new() -> Result<Self, DriverError> {
        Ok(Self(result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)?))
    }
}

impl Drop for Event {
    fn drop(&mut self) {
        unsafe {
            let _ = result::event::destroy(self.0);
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

pub struct Timed<T> {
    pub value: T,
    pub kernel_ms: f32,
}

pub fn transpose_timed_fixed(m: &[f32], rows: usize, cols: usize) -> Result<Timed<Vec<f32>>, Box<dyn Error>> {
    assert_eq!(m.len(), rows * cols);
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("transpose")?;

    let d_in = Dev(unsafe { result::malloc_sync(m.len() * 4)? });
    let d_out = Dev(unsafe { result::malloc_sync(m.len() * 4)? });
    unsafe { result::memcpy_htod_sync(d_in.0, m)? };

    let start = Event::new()?;
    let stop = Event::new()?;
    let (mut i, mut o, mut r, mut c) = (d_in.0, d_out.0, rows as i32, cols as i32);
    let mut args: [*mut c_void; 4] = [
        &mut i as *mut _ as *mut c_void,
        &mut o as *mut _ as *mut c_void,
        &mut r as *mut _ as *mut c_void,
        &mut c as *mut _ as *mut c_void,
    ];
    unsafe {
        result::event::record(start.0, cs)?;
        result::launch_kernel(
            func.cu_function(),
            ((cols as u32).div_ceil(16), (rows as u32).div_ceil(16), 1),
            (16, 16, 1),
            0,
            cs,
            &mut args,
        )?;
        if let Err(e) = result::event::record(stop.0, cs) {
            // without `stop` there is nothing to wait on: drain the stream before the buffers go
            result::stream::synchronize(cs)?;
            return Err(e.into());
        }
        result::event::synchronize(stop.0)?;
    }
    drop(d_in);

    let kernel_ms = unsafe { result::event::elapsed(start.0, stop.0)? };
    let mut out = vec![0.0f32; m.len()];
    unsafe { result::memcpy_dtoh_sync(&mut out, d_out.0)? };
    Ok(Timed { value: out, kernel_ms })
}
