//! case: point-cloud voxelizer allocates per-batch scratch with cuMemAllocAsync on the compute stream; the key buffer is returned with cuMemFreeAsync on the compute stream (ordered after the kernel), but the count buffer is returned on a separate housekeeping stream with no event ordering it after the kernel that uses it
//! expect: missing_sync=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const VOXEL_SRC: &str = r#"
extern "C" __global__ void voxel_keys(const float4* pts, unsigned int n, float inv_cell, unsigned long long* keys,
                                      unsigned int* counts, unsigned int buckets) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = pts[i];
    unsigned long long x = (unsigned long long)(p.x * inv_cell) & 0x1fffff;
    unsigned long long y = (unsigned long long)(p.y * inv_cell) & 0x1fffff;
    unsigned long long z = (unsigned long long)(p.z * inv_cell) & 0x1fffff;
    unsigned long long k = (x << 42) | (y << 21) | z;
    keys[i] = k;
    atomicAdd(&counts[k % buckets], 1u);
}
extern "C" __global__ void occupied(const unsigned int* counts, unsigned int buckets, unsigned int* out) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < buckets && counts[i] > 0) atomicAdd(out, 1u);
}
"#;

pub struct Voxelizer {
    compute: sys::CUstream,
    housekeeping: sys::CUstream,
    keys_k: sys::CUfunction,
    occ_k: sys::CUfunction,
    d_occupied: sys::CUdeviceptr,
    h_occupied: *mut u32,
}

impl Voxelizer {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(VOXEL_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let keys_k = unsafe { drv::module::get_function(module, CString::new("voxel_keys")?) }?;
        let occ_k = unsafe { drv::module::get_function(module, CString::new("occupied")?) }?;
        let (mut compute, mut housekeeping) = (std::ptr::null_mut(), std::ptr::null_mut());
        let mut d_occupied = 0;
        let mut h: *mut c_void = std::ptr::null_mut();
        unsafe {
            sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut housekeeping, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut d_occupied, 4).result()?;
            sys::cuMemAllocHost_v2(&mut h, 4).result()?;
        }
        Ok(Voxelizer { compute, housekeeping, keys_k, occ_k, d_occupied, h_occupied: h.cast() })
    }

    /// Number of occupied hash buckets for one batch of points (`n` float4 on the device).
    pub fn occupancy(&self, pts: sys::CUdeviceptr, n: u32, cell: f32, buckets: u32) -> Res<u32> {
        let (mut keys, mut counts) = (0, 0);
        unsafe {
            sys::cuMemAllocAsync(&mut keys, n as usize * 8, self.compute).result()?;
            sys::cuMemAllocAsync(&mut counts, buckets as usize * 4, self.compute).result()?;
            sys::cuMemsetD32Async(counts, 0, buckets as usize, self.compute).result()?;
            sys::cuMemsetD32Async(self.d_occupied, 0, 1, self.compute).result()?;
        }
        let (mut p, mut nn, mut ic, mut k, mut c, mut b) = (pts, n, 1.0 / cell, keys, counts, buckets);
        let mut kp: [*mut c_void; 6] = [
            (&mut p as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut ic as *mut f32).cast(),
            (&mut k as *mut u64).cast(),
            (&mut c as *mut u64).cast(),
            (&mut b as *mut u32).cast(),
        ];
        let mut o = self.d_occupied;
        let mut op: [*mut c_void; 3] = [(&mut c as *mut u64).cast(), (&mut b as *mut u32).cast(), (&mut o as *mut u64).cast()];
        unsafe {
            sys::cuLaunchKernel(self.keys_k, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.compute, kp.as_mut_ptr(), std::ptr::null_mut()).result()?;
            sys::cuLaunchKernel(self.occ_k, buckets.div_ceil(256), 1, 1, 256, 1, 1, 0, self.compute, op.as_mut_ptr(), std::ptr::null_mut()).result()?;
            sys::cuMemFreeAsync(keys, self.compute).result()?;
            // Frees go to the housekeeping stream so they never hold up the next batch.
            sys::cuMemFreeAsync(counts, self.housekeeping).result()?; // EXPECT: missing_sync
            sys::cuMemcpyDtoHAsync_v2(self.h_occupied.cast(), self.d_occupied, 4, self.compute).result()?;
            sys::cuStreamSynchronize(self.compute).result()?;
            Ok(*self.h_occupied)
        }
    }
}

impl Drop for Voxelizer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.compute);
            let _ = sys::cuStreamSynchronize(self.housekeeping);
            let _ = sys::cuMemFree_v2(self.d_occupied);
            let _ = sys::cuMemFreeHost(self.h_occupied.cast());
            let _ = sys::cuStreamDestroy_v2(self.compute);
            let _ = sys::cuStreamDestroy_v2(self.housekeeping);
        }
    }
}
