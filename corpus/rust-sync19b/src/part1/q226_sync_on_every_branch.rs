//! case: a quantizer waits for its kernel on every arm of the mode `match` (stream, context or event synchronize) before the lookup table is freed
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void quantize(const float* x, const float* edges, unsigned char* q, int n, int levels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int k = 0;
    while (k < levels - 1 && x[i] >= edges[k]) ++k;
    q[i] = (unsigned char)k;
}
"#;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    Fast,
    Checked,
    Profile,
}

struct Buf(sys::CUdeviceptr);

impl Buf {
    fn upload<T>(data: &[T]) -> Result<Self, DriverError> {
        let b = Self(unsafe { result::malloc_sync(std::mem::size_of_val(data))? });
        unsafe { result::memcpy_htod_sync(b.0, data)? };
        Ok(b)
    }
    fn alloc(bytes: usize) -> Result<Self, DriverError> {
        Ok(Self(unsafe { result::malloc_sync(bytes)? }))
    }
}

impl Drop for Buf {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

pub fn quantize_waited(x: &[f32], edges: &[f32], mode: Mode) -> Result<Vec<u8>, Box<dyn Error>> {
    assert!(!edges.is_empty() && edges.len() < 255);
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("quantize")?;

    let d_x = Buf::upload(x)?;
    let d_edges = Buf::upload(edges)?;
    let d_q = Buf::alloc(x.len())?;

    let (mut xp, mut ep, mut qp) = (d_x.0, d_edges.0, d_q.0);
    let (mut n, mut levels) = (x.len() as i32, edges.len() as i32 + 1);
    let mut args: [*mut c_void; 5] = [
        &mut xp as *mut _ as *mut c_void,
        &mut ep as *mut _ as *mut c_void,
        &mut qp as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
        &mut levels as *mut _ as *mut c_void,
    ];
    let start = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)?;
    let stop = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)?;
    unsafe {
        result::event::record(start, cs)?;
        result::launch_kernel(func.cu_function(), ((x.len() as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, cs, &mut args)?;
    }

    match mode {
        Mode::Fast => unsafe { result::ctx::synchronize()? },
        Mode::Checked => {
            stream.synchronize()?;
            ctx.check_err()?;
        }
        Mode::Profile => {
            unsafe {
                let recorded = result::event::record(stop, cs);
                if recorded.is_ok() {
                    result::event::synchronize(stop)?;
                    let ms = result::event::elapsed(start, stop)?;
                    eprintln!("quantize: {ms:.3} ms for {} values", x.len());
                } else {
                    stream.synchronize()?;
                }
            }
        }
    }
    drop(d_edges);

    stream.synchronize()?;
    unsafe {
        result::event::destroy(start)?;
        result::event::destroy(stop)?;
    }
    let mut q = vec![0u8; x.len()];
    unsafe { result::memcpy_dtoh_sync(&mut q, d_q.0)? };
    Ok(q)
}
