//! case: 64 bucket counters copied with `cuMemcpyDtoHAsync` into a stack array are scanned for the fullest bucket before any wait
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void bucket_count(const unsigned int* keys, unsigned int* counts, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i] & 63u], 1u);
}
"#;

const BUCKETS: usize = 64;

struct Dev(sys::CUdeviceptr);

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.0);
        }
    }
}

fn alloc(bytes: usize) -> Result<Dev, DriverError> {
    let mut p: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut p, bytes).result()? };
    Ok(Dev(p))
}

/// Returns the index of the fullest of the 64 hash buckets of `keys`.
pub fn fullest_bucket(keys: &[u32]) -> Result<(usize, u32), Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let cs = stream.cu_stream();
    let func = ctx.load_module(compile_ptx(SRC)?)?.load_function("bucket_count")?;

    let d_keys = alloc(std::mem::size_of_val(keys))?;
    let d_counts = alloc(BUCKETS * 4)?;
    unsafe {
        sys::cuMemcpyHtoD_v2(d_keys.0, keys.as_ptr() as *const c_void, std::mem::size_of_val(keys)).result()?;
        sys::cuMemsetD32_v2(d_counts.0, 0, BUCKETS).result()?;
    }

    let (mut k, mut c, mut n) = (d_keys.0, d_counts.0, keys.len() as i32);
    let mut args: [*mut c_void; 3] = [
        &mut k as *mut _ as *mut c_void,
        &mut c as *mut _ as *mut c_void,
        &mut n as *mut _ as *mut c_void,
    ];
    unsafe {
        result::launch_kernel(func.cu_function(), ((keys.len() as u32).div_ceil(256), 1, 1), (256, 1, 1), 0, cs, &mut args)?;
    }

    let mut counts = [0u32; BUCKETS];
    if let Err(e) = unsafe { sys::cuMemcpyDtoHAsync_v2(counts.as_mut_ptr() as *mut c_void, d_counts.0, BUCKETS * 4, cs).result() } {
        stream.synchronize()?;
        return Err(e.into());
    }
    let (best, &count) = counts.iter().enumerate().max_by_key(|(_, c)| **c).unwrap(); // EXPECT: relies_on_implicit_sync

    stream.synchronize()?;
    Ok((best, count))
}
