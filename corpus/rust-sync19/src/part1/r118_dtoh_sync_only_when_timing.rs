//! case: a prefix-difference kernel's output comes back with cuMemcpyDtoHAsync_v2 into a Vec; cuStreamSynchronize is called only when timing is enabled, so on the other path the host reads the Vec with no wait for the copy
//! expect: relies_on_implicit_sync=1, pageable_async_copy=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;
use std::time::Instant;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void first_difference(const double* x, double* dx, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dx[i] = i == 0 ? 0.0 : x[i] - x[i - 1];
}
"#;

pub struct Options {
    pub timing: bool,
}

struct Kernels {
    module: CUmodule,
    diff: CUfunction,
    stream: CUstream,
}

impl Kernels {
    fn load() -> Result<Self, Box<dyn Error>> {
        let ptx = compile_ptx(SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let diff = unsafe { result::module::get_function(module, CString::new("first_difference")?)? };
        let stream = result::stream::create(result::stream::StreamKind::Default)?;
        Ok(Self { module, diff, stream })
    }
}

impl Drop for Kernels {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::destroy(self.stream);
            let _ = result::module::unload(self.module);
        }
    }
}

/// Largest absolute step of a series.
pub fn max_step(series: &[f64], opts: &Options) -> Result<f64, Box<dyn Error>> {
    let n = series.len();
    let bytes = std::mem::size_of_val(series);
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let k = Kernels::load()?;

    let mut steps = vec![0.0f64; n];
    let max;
    unsafe {
        let mut d_x: CUdeviceptr = 0;
        let mut d_dx: CUdeviceptr = 0;
        let a1 = sys::cuMemAlloc_v2(&mut d_x, bytes);
        let a2 = sys::cuMemAlloc_v2(&mut d_dx, bytes);
        if let Err(e) = a1.result().and(a2.result()) {
            let _ = sys::cuMemFree_v2(d_x);
            let _ = sys::cuMemFree_v2(d_dx);
            return Err(e.into());
        }
        let started = Instant::now();
        let mut status: Result<(), DriverError> = sys::cuMemcpyHtoD_v2(d_x, series.as_ptr().cast(), bytes).result();
        if status.is_ok() {
            let (mut p_x, mut p_dx, mut n_i) = (d_x, d_dx, n as i32);
            let mut args: [*mut c_void; 3] = [(&raw mut p_x).cast(), (&raw mut p_dx).cast(), (&raw mut n_i).cast()];
            status = result::launch_kernel(k.diff, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, k.stream, &mut args);
        }
        if status.is_ok() {
            status = sys::cuMemcpyDtoHAsync_v2(steps.as_mut_ptr().cast(), d_dx, bytes, k.stream).result(); // EXPECT: pageable_async_copy
        }
        if opts.timing {
            let synced = sys::cuStreamSynchronize(k.stream).result();
            eprintln!("first_difference: {:?} ({synced:?})", started.elapsed());
        }
        max = steps.iter().fold(0.0f64, |m, s| m.max(s.abs())); // EXPECT: relies_on_implicit_sync

        let synced = sys::cuStreamSynchronize(k.stream).result();
        let _ = sys::cuMemFree_v2(d_x);
        let _ = sys::cuMemFree_v2(d_dx);
        status?;
        synced?;
    }
    Ok(max)
}
