//! Probe side: match pairs appended by the kernel, counted in device memory.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

use super::{BuildSide, HashJoin, Result};

pub struct PinnedKeys {
    ptr: *mut u32,
    len: usize,
}

impl PinnedKeys {
    pub fn from_slice(keys: &[u32]) -> Result<Self> {
        let mut p: *mut c_void = null_mut();
        unsafe {
            rt::cudaHostAlloc(&mut p, keys.len() * 4, rt::cudaHostAllocDefault).result()?;
            std::ptr::copy_nonoverlapping(keys.as_ptr(), p.cast::<u32>(), keys.len());
        }
        Ok(Self { ptr: p.cast(), len: keys.len() })
    }
}

impl Drop for PinnedKeys {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFreeHost(self.ptr.cast());
        }
    }
}

pub struct JoinResult {
    pub pairs: Vec<(u32, u32)>,
}

pub fn probe(join: &HashJoin, build: &BuildSide, keys: &PinnedKeys) -> Result<JoinResult> {
    let n = keys.len;
    let (mut d_probe, mut d_out, mut d_count): (*mut c_void, *mut c_void, *mut c_void) = (null_mut(), null_mut(), null_mut());
    unsafe {
        rt::cudaMalloc(&mut d_probe, n * 4).result()?;
        rt::cudaMalloc(&mut d_out, n * 8).result()?;
        rt::cudaMalloc(&mut d_count, 4).result()?;
        rt::cudaMemsetAsync(d_count, 0, 4, join.stream).result()?;
        rt::cudaMemcpyAsync(d_probe, keys.ptr.cast(), n * 4, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, join.stream)
            .result()?;
    }
    let (mut pk, mut tk, mut tv, mut out, mut cnt) =
        (d_probe as u64, build.table_keys as u64, build.table_vals as u64, d_out as u64, d_count as u64);
    let (mut n32, mut mask) = (n as u32, build.cap_mask);
    let mut params: [*mut c_void; 7] = [
        (&mut pk as *mut u64).cast(),
        (&mut n32 as *mut u32).cast(),
        (&mut tk as *mut u64).cast(),
        (&mut tv as *mut u64).cast(),
        (&mut mask as *mut u32).cast(),
        (&mut out as *mut u64).cast(),
        (&mut cnt as *mut u64).cast(),
    ];
    unsafe {
        drv::cuLaunchKernel(
            join.kernels.probe, n32.div_ceil(256).max(1), 1, 1, 256, 1, 1, 0, join.driver_stream(),
            params.as_mut_ptr(), null_mut(),
        )
        .result()?;
        rt::cudaStreamSynchronize(join.stream).result()?;
    }
    // Size the readback by the number of matches.
    let matches = unsafe { *(d_count as *const u32) } as usize; // EXPECT: host_deref_device_ptr
    let mut pinned: *mut c_void = null_mut();
    let pairs = unsafe {
        rt::cudaMallocHost(&mut pinned, matches.max(1) * 8).result()?;
        rt::cudaMemcpyAsync(pinned, d_out, matches * 8, rt::cudaMemcpyKind::cudaMemcpyDeviceToHost, join.stream).result()?;
        rt::cudaStreamSynchronize(join.stream).result()?;
        let raw = std::slice::from_raw_parts(pinned.cast::<[u32; 2]>(), matches);
        let pairs = raw.iter().map(|p| (p[0], p[1])).collect();
        rt::cudaFreeHost(pinned).result()?;
        rt::cudaFree(d_probe).result()?;
        rt::cudaFree(d_out).result()?;
        rt::cudaFree(d_count).result()?;
        pairs
    };
    Ok(JoinResult { pairs })
}
