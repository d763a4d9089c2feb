//! case: a launcher uploads a polynomial's coefficients into a RAII device buffer, launches the evaluation kernel on the caller's stream and drops the table at once: its Drop runs cuMemFree_v2 while the kernel may still read the coefficients
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void poly_eval(const float* coeffs, int degree,
                                     const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float acc = 0.0f;
        for (int k = degree; k >= 0; --k) {
            acc = acc * x[i] + coeffs[k];
        }
        y[i] = acc;
    }
}
"#;

/// Device memory owned by the host side; released with `cuMemFree_v2` when dropped.
struct DeviceBuffer {
    ptr: CUdeviceptr,
    bytes: usize,
}

impl DeviceBuffer {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr, bytes })
    }

    /// Allocates and fills with a blocking copy.
    fn from_host(data: &[f32]) -> Result<Self, DriverError> {
        let buf = Self::new(std::mem::size_of_val(data))?;
        unsafe { sys::cuMemcpyHtoD_v2(buf.ptr, data.as_ptr().cast(), buf.bytes).result()? };
        Ok(buf)
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Evaluates `coeffs` at every `x`, writing `y`. Asynchronous: the caller synchronizes `stream`.
fn launch_poly(
    f: CUfunction,
    stream: CUstream,
    coeffs: &[f32],
    x: &DeviceBuffer,
    y: &DeviceBuffer,
    n: usize,
) -> Result<(), DriverError> {
    assert!(!coeffs.is_empty());
    let table = DeviceBuffer::from_host(coeffs)?;
    let mut p_coeffs = table.ptr;
    let mut degree = (coeffs.len() - 1) as i32;
    let mut p_x = x.ptr;
    let mut p_y = y.ptr;
    let mut n_i = n as i32;
    let mut args: [*mut c_void; 5] = [
        (&raw mut p_coeffs).cast(),
        (&raw mut degree).cast(),
        (&raw mut p_x).cast(),
        (&raw mut p_y).cast(),
        (&raw mut n_i).cast(),
    ];
    let grid = n.div_ceil(256) as u32;
    unsafe { result::launch_kernel(f, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args)? };
    drop(table); // EXPECT: relies_on_implicit_sync
    Ok(())
}

pub fn run(xs: &[f32], coeffs: &[f32]) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("poly_eval")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let n = xs.len();
    let x = DeviceBuffer::from_host(xs)?;
    let y = DeviceBuffer::new(n * std::mem::size_of::<f32>())?;
    launch_poly(f, stream, coeffs, &x, &y, n)?;

    let mut out = vec![0.0f32; n];
    unsafe {
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), y.ptr, y.bytes).result()?;
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
    }
    Ok(out)
}
