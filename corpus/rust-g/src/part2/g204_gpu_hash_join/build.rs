//! Build side: keys and payload staged through pinned memory, table in cudaMalloc'd memory.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

use super::{HashJoin, Result};

pub struct BuildSide {
    pub table_keys: *mut c_void,
    pub table_vals: *mut c_void,
    pub cap_mask: u32,
}

impl BuildSide {
    pub fn build(join: &HashJoin, keys: &[u32], payload: &[u32]) -> Result<Self> {
        let n = keys.len();
        let capacity = (2 * n).next_power_of_two().max(1024);
        let bytes = n * 4;
        let (mut staging, mut d_keys, mut d_vals): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
        let (mut table_keys, mut table_vals): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        unsafe {
            rt::cudaMallocHost(&mut staging, 2 * bytes).result()?;
            let host = std::slice::from_raw_parts_mut(staging.cast::<u32>(), 2 * n);
            host[..n].copy_from_slice(keys);
            host[n..].copy_from_slice(payload);
            rt::cudaMalloc(&mut d_keys, bytes).result()?;
            rt::cudaMalloc(&mut d_vals, bytes).result()?;
            rt::cudaMalloc(&mut table_keys, capacity * 4).result()?;
            rt::cudaMalloc(&mut table_vals, capacity * 4).result()?;
            rt::cudaMemsetAsync(table_keys, 0xff, capacity * 4, join.stream).result()?;
            rt::cudaMemcpyAsync(d_keys, staging, bytes, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, join.stream).result()?;
            rt::cudaMemcpyAsync(
                d_vals,
                staging.cast::<u8>().add(bytes).cast(),
                bytes,
                rt::cudaMemcpyKind::cudaMemcpyHostToDevice,
                join.stream,
            )
            .result()?;
        }
        let cap_mask = (capacity - 1) as u32;
        let (mut k, mut v, mut tk, mut tv) = (d_keys as u64, d_vals as u64, table_keys as u64, table_vals as u64);
        let (mut n32, mut mask) = (n as u32, cap_mask);
        let mut params: [*mut c_void; 6] = [
            (&mut k as *mut u64).cast(),
            (&mut v as *mut u64).cast(),
            (&mut n32 as *mut u32).cast(),
            (&mut tk as *mut u64).cast(),
            (&mut tv as *mut u64).cast(),
            (&mut mask as *mut u32).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(
                join.kernels.build, n32.div_ceil(256).max(1), 1, 1, 256, 1, 1, 0, join.driver_stream(),
                params.as_mut_ptr(), null_mut(),
            )
            .result()?;
            rt::cudaStreamSynchronize(join.stream).result()?;
            rt::cudaFree(d_keys).result()?;
            rt::cudaFree(d_vals).result()?;
            rt::cudaFreeHost(staging).result()?;
        }
        Ok(Self { table_keys, table_vals, cap_mask })
    }
}

impl Drop for BuildSide {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFree(self.table_keys);
            let _ = rt::cudaFree(self.table_vals);
        }
    }
}
