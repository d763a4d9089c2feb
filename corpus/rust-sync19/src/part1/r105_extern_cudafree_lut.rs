//! case: tone mapping through the crate's own extern "C" runtime bindings: the lookup table is cudaFree'd right after cudaLaunchKernel on the legacy stream, and only the blocking cudaMemcpy of the result comes after it
//! expect: relies_on_implicit_sync=1

use std::ffi::{CString, NulError, c_int, c_uint, c_void};
use std::fmt;
use std::ptr;

use cudarc::driver::result::DriverError;
use cudarc::driver::{CudaContext, sys as drv};
use cudarc::nvrtc::{CompileError, compile_ptx};

const LUT_SIZE: usize = 4096;

const SRC: &str = r#"
extern "C" __global__ void tone_map(const float* in, const float* lut, float* out, int n, int lut_size) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = fminf(fmaxf(in[i], 0.0f), 1.0f);
        int k = (int)(v * (lut_size - 1));
        out[i] = lut[k];
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

const MEMCPY_HOST_TO_DEVICE: c_int = 1;
const MEMCPY_DEVICE_TO_HOST: c_int = 2;

unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(dev_ptr: *mut c_void) -> c_int;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> c_int;
    fn cudaLaunchKernel(
        func: *const c_void,
        grid: Dim3,
        block: Dim3,
        args: *mut *mut c_void,
        shared_mem: usize,
        stream: *mut c_void,
    ) -> c_int;
}

#[derive(Debug)]
pub enum ToneError {
    Cuda(c_int),
    Driver(DriverError),
    Compile(CompileError),
    Nul(NulError),
}

impl fmt::Display for ToneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self:?}")
    }
}

impl std::error::Error for ToneError {}

impl From<DriverError> for ToneError {
    fn from(e: DriverError) -> Self {
        ToneError::Driver(e)
    }
}
impl From<CompileError> for ToneError {
    fn from(e: CompileError) -> Self {
        ToneError::Compile(e)
    }
}
impl From<NulError> for ToneError {
    fn from(e: NulError) -> Self {
        ToneError::Nul(e)
    }
}

fn check(code: c_int) -> Result<(), ToneError> {
    if code == 0 { Ok(()) } else { Err(ToneError::Cuda(code)) }
}

fn gamma_lut(gamma: f32) -> Vec<f32> {
    (0..LUT_SIZE).map(|k| (k as f32 / (LUT_SIZE - 1) as f32).powf(1.0 / gamma)).collect()
}

pub fn tone_map(pixels: &[f32], gamma: f32) -> Result<Vec<f32>, ToneError> {
    let n = pixels.len();
    let bytes = n * std::mem::size_of::<f32>();
    let lut = gamma_lut(gamma);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let name = CString::new("tone_map")?;
    let mut module: drv::CUmodule = ptr::null_mut();
    let mut func: drv::CUfunction = ptr::null_mut();
    unsafe {
        drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        drv::cuModuleGetFunction(&mut func, module, name.as_ptr()).result()?;
    }

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut d_in: *mut c_void = ptr::null_mut();
        let mut d_lut: *mut c_void = ptr::null_mut();
        let mut d_out: *mut c_void = ptr::null_mut();
        let allocs = [
            cudaMalloc(&mut d_in, bytes),
            cudaMalloc(&mut d_lut, LUT_SIZE * std::mem::size_of::<f32>()),
            cudaMalloc(&mut d_out, bytes),
        ];
        if let Some(&code) = allocs.iter().find(|&&c| c != 0) {
            cudaFree(d_in);
            cudaFree(d_lut);
            cudaFree(d_out);
            return Err(ToneError::Cuda(code));
        }

        let mut status = check(cudaMemcpy(d_in, pixels.as_ptr().cast(), bytes, MEMCPY_HOST_TO_DEVICE));
        if status.is_ok() {
            status = check(cudaMemcpy(
                d_lut,
                lut.as_ptr().cast(),
                LUT_SIZE * std::mem::size_of::<f32>(),
                MEMCPY_HOST_TO_DEVICE,
            ));
        }
        if status.is_ok() {
            let (mut p_in, mut p_lut, mut p_out) = (d_in, d_lut, d_out);
            let (mut n_i, mut lut_i) = (n as i32, LUT_SIZE as i32);
            let mut args: [*mut c_void; 5] = [
                (&raw mut p_in).cast(),
                (&raw mut p_lut).cast(),
                (&raw mut p_out).cast(),
                (&raw mut n_i).cast(),
                (&raw mut lut_i).cast(),
            ];
            let grid = Dim3 { x: n.div_ceil(256) as c_uint, y: 1, z: 1 };
            let block = Dim3 { x: 256, y: 1, z: 1 };
            status = check(cudaLaunchKernel(
                func as *const c_void,
                grid,
                block,
                args.as_mut_ptr(),
                0,
                ptr::null_mut(),
            ));
        }
        // The table is only needed by the launch.
        cudaFree(d_lut); // EXPECT: relies_on_implicit_sync
        if status.is_ok() {
            status = check(cudaMemcpy(out.as_mut_ptr().cast(), d_out, bytes, MEMCPY_DEVICE_TO_HOST));
        }
        cudaFree(d_in);
        cudaFree(d_out);
        drv::cuModuleUnload(module);
        status?;
    }
    Ok(out)
}
