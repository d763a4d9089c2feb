//! case: a trimming device pool frees the gather kernel's index buffer in `release` right after the launch
//! expect: relies_on_implicit_sync=1

use std::collections::HashMap;
use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void gather(const float* src, const int* idx, float* dst, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        dst[i] = src[idx[i]];
    }
}
"#;

/// Hands out device allocations and keeps the books; `release` gives memory back to the
/// driver at once so that the peak stays low between requests.
#[derive(Default)]
pub struct DevicePool {
    live: HashMap<sys::CUdeviceptr, usize>,
    in_use: usize,
    peak: usize,
}

impl DevicePool {
    pub fn acquire(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, DriverError> {
        let ptr = unsafe { result::malloc_sync(bytes)? };
        self.live.insert(ptr, bytes);
        self.in_use += bytes;
        self.peak = self.peak.max(self.in_use);
        Ok(ptr)
    }

    pub fn release(&mut self, ptr: sys::CUdeviceptr) -> Result<(), DriverError> {
        if let Some(bytes) = self.live.remove(&ptr) {
            self.in_use -= bytes;
            unsafe { sys::cuMemFree_v2(ptr).result()? };
        }
        Ok(())
    }

    pub fn peak_bytes(&self) -> usize {
        self.peak
    }
}

impl Drop for DevicePool {
    fn drop(&mut self) {
        for (&ptr, _) in self.live.iter() {
            unsafe {
                let _ = sys::cuMemFree_v2(ptr);
            }
        }
    }
}

fn upload<T>(dst: sys::CUdeviceptr, src: &[T]) -> Result<(), DriverError> {
    unsafe { result::memcpy_htod_sync(dst, src) }
}

pub fn gather_rows(table: &[f32], indices: &[i32]) -> Result<Vec<f32>, Box<dyn Error>> {
    if indices.iter().any(|&i| i < 0 || i as usize >= table.len()) {
        return Err("index out of range".into());
    }
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let gather = module.load_function("gather")?;

    let mut pool = DevicePool::default();
    let n = indices.len();
    let d_src = pool.acquire(std::mem::size_of_val(table))?;
    let d_idx = pool.acquire(std::mem::size_of_val(indices))?;
    let d_dst = pool.acquire(n * std::mem::size_of::<f32>())?;
    upload(d_src, table)?;
    upload(d_idx, indices)?;

    let (mut a, mut b, mut c, mut n_i) = (d_src, d_idx, d_dst, n as i32);
    let mut params: [*mut c_void; 4] = [
        &mut a as *mut _ as *mut c_void,
        &mut b as *mut _ as *mut c_void,
        &mut c as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
    ];
    unsafe {
        result::launch_kernel(
            gather.cu_function(),
            ((n as u32).div_ceil(128), 1, 1),
            (128, 1, 1),
            0,
            stream.cu_stream(),
            &mut params,
        )?;
    }
    // the indices are not needed any more: hand them back before the next request comes in
    pool.release(d_idx)?; // EXPECT: relies_on_implicit_sync

    stream.synchronize()?;
    let mut out = vec![0.0f32; n];
    unsafe { result::memcpy_dtoh_sync(&mut out, d_dst)? };
    pool.release(d_dst)?;
    pool.release(d_src)?;
    Ok(out)
}
