//! case: a column transform page-locks the caller's input and output Vecs with `cudaHostRegister`, copies asynchronously from and to them around a kernel on one stream, synchronizes, unregisters both, and only then reads the output: registered memory is pinned, and every access to it comes after the wait
//! expect: none

use std::ffi::{CString, c_void};

use cudarc::driver::result as drv;
use cudarc::driver::sys::{CUfunction, CUstream};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const LOG1P_SRC: &str = r#"
extern "C" __global__ void log1p_clamp(const float* in, float* out, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = log1pf(fmaxf(in[i], 0.0f));
}
"#;

fn rt_ok(e: rt::cudaError_t) -> Result<(), String> {
    if e == rt::cudaError::cudaSuccess { Ok(()) } else { Err(format!("{e:?}")) }
}

pub struct ColumnTransform {
    func: CUfunction,
    stream: cudaStream_t,
}

impl ColumnTransform {
    pub fn new(stream: cudaStream_t) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(LOG1P_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(ptx.as_ptr() as *const c_void)? };
        let func = unsafe { drv::module::get_function(module, CString::new("log1p_clamp")?)? };
        Ok(Self { func, stream })
    }

    pub fn apply(&self, column: &mut Vec<f32>) -> Result<Vec<f32>, String> {
        let n = column.len();
        let bytes = n * 4;
        let mut out = vec![0.0f32; n];
        let (hin, hout) = (column.as_mut_ptr() as *mut c_void, out.as_mut_ptr() as *mut c_void);
        let (mut din, mut dout) = (std::ptr::null_mut(), std::ptr::null_mut());
        unsafe {
            rt_ok(rt::cudaHostRegister(hin, bytes, rt::cudaHostRegisterDefault))?;
            if let Err(e) = rt_ok(rt::cudaHostRegister(hout, bytes, rt::cudaHostRegisterDefault)) {
                rt::cudaHostUnregister(hin);
                return Err(e);
            }
            let enqueued = (|| -> Result<(), String> {
                rt_ok(rt::cudaMalloc(&mut din, bytes))?;
                rt_ok(rt::cudaMalloc(&mut dout, bytes))?;
                rt_ok(rt::cudaMemcpyAsync(din, hin, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream))?;
                let (mut a, mut b, mut n32) = (din as u64, dout as u64, n as u32);
                let mut params = [
                    &mut a as *mut u64 as *mut c_void,
                    &mut b as *mut u64 as *mut c_void,
                    &mut n32 as *mut u32 as *mut c_void,
                ];
                let grid = ((n as u32).div_ceil(256), 1, 1);
                drv::launch_kernel(self.func, grid, (256, 1, 1), 0, self.stream as CUstream, &mut params)
                    .map_err(|e| e.to_string())?;
                rt_ok(rt::cudaMemcpyAsync(hout, dout, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost, self.stream))
            })();
            // whatever was enqueued, wait for it before unpinning and freeing
            let synced = rt_ok(rt::cudaStreamSynchronize(self.stream));
            rt::cudaHostUnregister(hin);
            rt::cudaHostUnregister(hout);
            rt::cudaFree(din);
            rt::cudaFree(dout);
            enqueued.and(synced)?;
        }
        Ok(out)
    }
}
