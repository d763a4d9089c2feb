//! case: an FIR filter bank loads its NVRTC module with cudarc's `driver::result`, writes the taps into the module's `__constant__` array found with `cuModuleGetGlobal`, and its Drop releases that symbol's address with `free_sync` (`cuMemFree_v2`) as if it were an allocation (cudarc issue #514)
//! expect: mismatched_free=1

use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUstream};
use cudarc::nvrtc::compile_ptx;

const FIR_SRC: &str = r#"
#define MAX_TAPS 64
__constant__ float taps[MAX_TAPS];
extern "C" __global__ void fir(const float* x, float* y, unsigned int n, unsigned int n_taps) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (unsigned int k = 0; k < n_taps && k <= i; ++k) acc += taps[k] * x[i - k];
    y[i] = acc;
}
"#;

pub struct FilterBank {
    module: CUmodule,
    fir: CUfunction,
    taps: CUdeviceptr,
    taps_bytes: usize,
    n_taps: u32,
}

impl FilterBank {
    pub fn new(coeffs: &[f32]) -> Result<FilterBank, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(FIR_SRC)?.to_src())?;
        let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void)? };
        let fir = unsafe { result::module::get_function(module, CString::new("fir")?)? };
        let (taps, taps_bytes) = unsafe { result::module::get_global(module, CString::new("taps")?)? };
        let n = coeffs.len().min(taps_bytes / 4);
        unsafe { result::memcpy_htod_sync(taps, &coeffs[..n])? };
        // a pageable upload returns once staged: let it land before any stream reads the taps
        result::ctx::synchronize()?;
        Ok(FilterBank { module, fir, taps, taps_bytes, n_taps: n as u32 })
    }

    pub fn apply(&self, x: CUdeviceptr, y: CUdeviceptr, n: u32, stream: CUstream) -> Result<(), DriverError> {
        let (mut x, mut y, mut n_, mut t) = (x, y, n, self.n_taps);
        let mut params = [
            &mut x as *mut CUdeviceptr as *mut c_void,
            &mut y as *mut CUdeviceptr as *mut c_void,
            &mut n_ as *mut u32 as *mut c_void,
            &mut t as *mut u32 as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.fir, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params) }
    }
}

impl Drop for FilterBank {
    fn drop(&mut self) {
        unsafe {
            let _ = result::ctx::synchronize();
            let _ = result::free_sync(self.taps); // EXPECT: mismatched_free
            let _ = result::module::unload(self.module);
        }
    }
}
