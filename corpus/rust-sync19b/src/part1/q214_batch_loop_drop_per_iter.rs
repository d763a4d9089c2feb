//! case: column sums over a stream of row batches; each batch's device copy is dropped at the end of its iteration while the accumulate kernel may still read it
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void accumulate_cols(const float* batch, double* acc, int rows, int cols) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cols) return;
    double s = 0.0;
    for (int r = 0; r < rows; ++r) s += batch[r * cols + c];
    acc[c] += s;
}
"#;

struct DeviceBatch {
    ptr: sys::CUdeviceptr,
    rows: usize,
}

impl DeviceBatch {
    fn upload(rows: &[f32], cols: usize) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(std::mem::size_of_val(rows))? };
        let b = Self { ptr, rows: rows.len() / cols };
        unsafe { result::memcpy_htod_sync(b.ptr, rows)? };
        Ok(b)
    }
}

impl Drop for DeviceBatch {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

struct Accumulator(sys::CUdeviceptr);

impl Drop for Accumulator {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

pub fn column_sums<'a, I>(batches: I, cols: usize) -> Result<Vec<f64>, Box<dyn Error>>
where
    I: IntoIterator<Item = &'a [f32]>,
{
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("accumulate_cols")?;

    let acc = Accumulator(unsafe { result::malloc_sync(cols * 8)? });
    unsafe { result::memset_d8_sync(acc.0, 0, cols * 8)? };

    for rows in batches {
        assert_eq!(rows.len() % cols, 0);
        let batch = DeviceBatch::upload(rows, cols)?;
        let (mut b, mut a) = (batch.ptr, acc.0);
        let (mut r, mut c) = (batch.rows as i32, cols as i32);
        let mut args: [*mut c_void; 4] = [
            &mut b as *mut _ as *mut c_void,
            &mut a as *mut _ as *mut c_void,
            &mut r as *mut _ as *mut c_void,
            &mut c as *mut _ as *mut c_void,
        ];
        unsafe {
            result::launch_kernel(func.cu_function(), ((cols as u32).div_ceil(128), 1, 1), (128, 1, 1), 0, stream.cu_stream(), &mut args)?;
        }
        drop(batch); // EXPECT: relies_on_implicit_sync
    }

    stream.synchronize()?;
    let mut sums = vec![0.0f64; cols];
    unsafe { result::memcpy_dtoh_sync(&mut sums, acc.0)? };
    Ok(sums)
}
