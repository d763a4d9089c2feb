//! case: a 1-D Jacobi smoother keeps two ping-pong buffers in a RAII workspace whose Drop calls cuMemFree_v2 on both; smooth() launches its sweeps (the last one writes the caller's buffer) and drops the workspace before the caller synchronizes the stream
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void jacobi_sweep(const float* u, float* u_next, const float* rhs, float h2, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    if (i == 0 || i == n - 1) {
        u_next[i] = u[i];
    } else {
        u_next[i] = 0.5f * (u[i - 1] + u[i + 1] - h2 * rhs[i]);
    }
}
"#;

/// Two scratch grids of `n` floats.
struct Workspace {
    a: CUdeviceptr,
    b: CUdeviceptr,
}

impl Workspace {
    fn new(n: usize) -> Result<Self, DriverError> {
        let bytes = n * std::mem::size_of::<f32>();
        let a = unsafe { result::malloc_sync(bytes)? };
        match unsafe { result::malloc_sync(bytes) } {
            Ok(b) => Ok(Self { a, b }),
            Err(e) => {
                unsafe {
                    let _ = sys::cuMemFree_v2(a);
                }
                Err(e)
            }
        }
    }
}

impl Drop for Workspace {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.a);
            let _ = sys::cuMemFree_v2(self.b);
        }
    }
}

struct Smoother {
    f: CUfunction,
    stream: CUstream,
}

impl Smoother {
    /// Runs `sweeps` Jacobi sweeps from `u0`, leaving the result in `out` (device, n floats).
    /// `rhs` is a device buffer of n floats. Asynchronous with respect to the host.
    fn smooth(&self, u0: &[f32], rhs: CUdeviceptr, out: CUdeviceptr, h2: f32, sweeps: usize) -> Result<(), DriverError> {
        assert!(sweeps >= 1);
        let n = u0.len();
        let ws = Workspace::new(n)?;
        unsafe { result::memcpy_htod_sync(ws.a, u0)? };
        let grid = n.div_ceil(128) as u32;
        let mut launched = Ok(());
        for s in 0..sweeps {
            let (mut src, mut dst) = if s % 2 == 0 { (ws.a, ws.b) } else { (ws.b, ws.a) };
            if s == sweeps - 1 {
                dst = out;
            }
            let (mut p_rhs, mut h2v, mut n_i) = (rhs, h2, n as i32);
            let mut args: [*mut c_void; 5] = [
                (&raw mut src).cast(),
                (&raw mut dst).cast(),
                (&raw mut p_rhs).cast(),
                (&raw mut h2v).cast(),
                (&raw mut n_i).cast(),
            ];
            launched = unsafe { result::launch_kernel(self.f, (grid, 1, 1), (128, 1, 1), 0, self.stream, &mut args) };
            if launched.is_err() {
                break;
            }
        }
        drop(ws); // EXPECT: relies_on_implicit_sync
        launched
    }
}

pub fn solve_poisson(rhs_host: &[f32], h: f32, sweeps: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let n = rhs_host.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("jacobi_sweep")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;
    let smoother = Smoother { f, stream };

    let grids = Workspace::new(n)?; // a: rhs, b: result
    unsafe { result::memcpy_htod_sync(grids.a, rhs_host)? };
    let u0 = vec![0.0f32; n];
    smoother.smooth(&u0, grids.a, grids.b, h * h, sweeps)?;

    let mut u = vec![0.0f32; n];
    unsafe {
        result::stream::synchronize(stream)?;
        result::memcpy_dtoh_sync(&mut u, grids.b)?;
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
    }
    Ok(u)
}
