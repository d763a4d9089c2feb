//! case: a RAII device vector (cuMemFree_v2 in Drop) holds the filter taps of a FIR kernel; the stream is synchronized with cuStreamSynchronize before the taps are dropped, and the output is copied back with a blocking copy
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fir(const float* x, const float* taps, int ntaps, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = 0; k < ntaps; ++k) {
            if (i - k >= 0) acc += taps[k] * x[i - k];
        }
        y[i] = acc;
    }
}
"#;

struct GpuVec {
    ptr: CUdeviceptr,
    len: usize,
}

impl GpuVec {
    fn zeroed(len: usize) -> Result<Self, DriverError> {
        let v = Self { ptr: unsafe { result::malloc_sync(len * 4)? }, len };
        unsafe { sys::cuMemsetD32_v2(v.ptr, 0, len).result()? };
        Ok(v)
    }

    fn from_slice(data: &[f32]) -> Result<Self, DriverError> {
        let v = Self { ptr: unsafe { result::malloc_sync(std::mem::size_of_val(data))? }, len: data.len() };
        unsafe { result::memcpy_htod_sync(v.ptr, data)? };
        Ok(v)
    }

    fn to_vec(&self) -> Result<Vec<f32>, DriverError> {
        let mut out = vec![0.0f32; self.len];
        unsafe { result::memcpy_dtoh_sync(&mut out, self.ptr)? };
        Ok(out)
    }
}

impl Drop for GpuVec {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub fn filter(signal: &[f32], taps: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("fir")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let x = GpuVec::from_slice(signal)?;
    let y = GpuVec::zeroed(signal.len())?;
    let d_taps = GpuVec::from_slice(taps)?;
    let (mut p_x, mut p_t, mut nt, mut p_y, mut n) = (x.ptr, d_taps.ptr, taps.len() as i32, y.ptr, signal.len() as i32);
    let mut args: [*mut c_void; 5] = [
        (&raw mut p_x).cast(),
        (&raw mut p_t).cast(),
        (&raw mut nt).cast(),
        (&raw mut p_y).cast(),
        (&raw mut n).cast(),
    ];
    unsafe {
        result::launch_kernel(f, (signal.len().div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args)?;
        sys::cuStreamSynchronize(stream).result()?;
    }
    drop(d_taps);
    let out = y.to_vec()?;
    unsafe {
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
    }
    Ok(out)
}
