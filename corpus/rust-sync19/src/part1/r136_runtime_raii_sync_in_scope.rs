//! case: runtime API with a RAII buffer (cudaFree in Drop) for a per-call lookup table inside an inner block; cudaStreamSynchronize runs before the block ends, so the table is freed after the kernel that reads it has finished
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{RuntimeError, launch_kernel};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const SRC: &str = r#"
extern "C" __global__ void remap_labels(const int* labels, const int* table, int* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[labels[i]];
}
"#;

struct DeviceInts {
    ptr: *mut c_void,
    len: usize,
}

impl DeviceInts {
    fn new(len: usize) -> Result<Self, RuntimeError> {
        let mut ptr = ptr::null_mut();
        unsafe { rt::cudaMalloc(&mut ptr, len * 4).result()? };
        Ok(Self { ptr, len })
    }

    fn from_slice(v: &[i32]) -> Result<Self, RuntimeError> {
        let d = Self::new(v.len())?;
        unsafe {
            rt::cudaMemcpy(d.ptr, v.as_ptr().cast(), v.len() * 4, cudaMemcpyKind::cudaMemcpyHostToDevice).result()?
        };
        Ok(d)
    }
}

impl Drop for DeviceInts {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFree(self.ptr);
        }
    }
}

/// Replaces every label `l` by `table[l]`.
pub fn remap(labels: &[i32], table: &[i32]) -> Result<Vec<i32>, Box<dyn Error>> {
    assert!(labels.iter().all(|&l| l >= 0 && (l as usize) < table.len()));
    let n = labels.len();
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { drv::module::get_function(module, CString::new("remap_labels")?)? };
    let mut stream: cudaStream_t = ptr::null_mut();
    unsafe { rt::cudaStreamCreate(&mut stream).result()? };

    let d_labels = DeviceInts::from_slice(labels)?;
    let d_out = DeviceInts::new(n)?;
    {
        let d_table = DeviceInts::from_slice(table)?;
        let (mut p_l, mut p_t, mut p_o, mut n_i) = (d_labels.ptr, d_table.ptr, d_out.ptr, n as i32);
        let mut args: [*mut c_void; 4] = [(&raw mut p_l).cast(), (&raw mut p_t).cast(), (&raw mut p_o).cast(), (&raw mut n_i).cast()];
        unsafe {
            launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args)?;
            rt::cudaStreamSynchronize(stream).result()?;
        }
    }

    let mut out = vec![0i32; d_out.len];
    unsafe {
        rt::cudaMemcpy(out.as_mut_ptr().cast(), d_out.ptr, d_out.len * 4, cudaMemcpyKind::cudaMemcpyDeviceToHost).result()?;
        rt::cudaStreamDestroy(stream).result()?;
        drv::module::unload(module)?;
    }
    Ok(out)
}
