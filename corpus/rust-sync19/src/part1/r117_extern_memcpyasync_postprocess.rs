//! case: the crate's own extern "C" runtime bindings: a gain kernel on a created stream, cudaMemcpyAsync of the result into a Vec (pageable), then the host clamps the Vec in place (read and write) before cudaStreamSynchronize
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::{CString, c_int, c_uint, c_void};
use std::fmt;
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void apply_gain(const float* in, float* out, float gain, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * gain;
}
"#;

type CudaStream = *mut c_void;

#[repr(C)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

const H2D: c_int = 1;
const D2H: c_int = 2;

unsafe extern "C" {
    fn cudaSetDevice(device: c_int) -> c_int;
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(ptr: *mut c_void) -> c_int;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStream) -> c_int;
    fn cudaStreamCreate(stream: *mut CudaStream) -> c_int;
    fn cudaStreamSynchronize(stream: CudaStream) -> c_int;
    fn cudaStreamDestroy(stream: CudaStream) -> c_int;
    fn cudaLaunchKernel(
        func: *const c_void,
        grid: Dim3,
        block: Dim3,
        args: *mut *mut c_void,
        shared: usize,
        stream: CudaStream,
    ) -> c_int;
}

#[derive(Debug)]
struct CudaError(c_int);

impl fmt::Display for CudaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "CUDA runtime error {}", self.0)
    }
}

impl Error for CudaError {}

fn ok(code: c_int) -> Result<(), CudaError> {
    if code == 0 { Ok(()) } else { Err(CudaError(code)) }
}

/// Applies `gain` on the device and clamps the result to [-1, 1] on the host.
pub fn amplify(samples: &[f32], gain: f32) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = samples.len();
    let bytes = n * std::mem::size_of::<f32>();
    unsafe { ok(cudaSetDevice(0))? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let func = unsafe { drv::module::get_function(module, CString::new("apply_gain")?)? };

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut stream: CudaStream = ptr::null_mut();
        ok(cudaStreamCreate(&mut stream))?;
        let mut d_in: *mut c_void = ptr::null_mut();
        let mut d_out: *mut c_void = ptr::null_mut();
        let a1 = cudaMalloc(&mut d_in, bytes);
        let a2 = cudaMalloc(&mut d_out, bytes);
        if let Err(e) = ok(a1).and(ok(a2)) {
            cudaFree(d_in);
            cudaFree(d_out);
            cudaStreamDestroy(stream);
            return Err(e.into());
        }

        let mut status = ok(cudaMemcpy(d_in, samples.as_ptr().cast(), bytes, H2D));
        if status.is_ok() {
            let (mut p_in, mut p_out, mut g, mut n_i) = (d_in, d_out, gain, n as i32);
            let mut args: [*mut c_void; 4] =
                [(&raw mut p_in).cast(), (&raw mut p_out).cast(), (&raw mut g).cast(), (&raw mut n_i).cast()];
            status = ok(cudaLaunchKernel(
                func as *const c_void,
                Dim3 { x: n.div_ceil(256) as c_uint, y: 1, z: 1 },
                Dim3 { x: 256, y: 1, z: 1 },
                args.as_mut_ptr(),
                0,
                stream,
            ));
        }
        if status.is_ok() {
            status = ok(cudaMemcpyAsync(out.as_mut_ptr().cast(), d_out, bytes, D2H, stream)); // EXPECT: pageable_async_copy
        }
        out.iter_mut().for_each(|v| *v = v.clamp(-1.0, 1.0)); // EXPECT: relies_on_implicit_sync

        let synced = ok(cudaStreamSynchronize(stream));
        cudaFree(d_in);
        cudaFree(d_out);
        cudaStreamDestroy(stream);
        let _ = drv::module::unload(module);
        status?;
        synced?;
    }
    Ok(out)
}
