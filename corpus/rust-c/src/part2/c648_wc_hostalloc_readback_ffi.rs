//! case: an FFI crate over libcuda allocates one portable, write-combined `cuMemHostAlloc` block per GPU for staging, and also uses it as the destination of the per-step loss readback that the host then averages
//! expect: write_combined_host_read=1

use std::ffi::c_void;
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

const CU_MEMHOSTALLOC_PORTABLE: u32 = 0x01;
const CU_MEMHOSTALLOC_WRITECOMBINED: u32 = 0x04;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cuMemcpyHtoDAsync(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    #[link_name = "cuMemcpyDtoHAsync_v2"]
    fn cuMemcpyDtoHAsync(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

/// Per-GPU staging area, shared by input uploads and metric downloads.
pub struct Staging {
    ptr: *mut c_void,
    bytes: usize,
}

impl Staging {
    pub fn new(bytes: usize) -> Result<Self, CUresult> {
        let mut ptr = null_mut();
        match unsafe { cuMemHostAlloc(&mut ptr, bytes, CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_WRITECOMBINED) } {
            0 => Ok(Self { ptr, bytes }),
            e => Err(e),
        }
    }

    pub fn as_f32_mut(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut f32, self.bytes / 4) }
    }

    pub fn as_f32(&self) -> &[f32] {
        unsafe { std::slice::from_raw_parts(self.ptr as *const f32, self.bytes / 4) }
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        unsafe { cuMemFreeHost(self.ptr) };
    }
}

pub struct StepIo<'a> {
    pub stream: CUstream,
    pub staging: &'a mut Staging,
}

impl StepIo<'_> {
    pub fn upload_batch(&mut self, batch: &[f32], dst: CUdeviceptr) -> Result<(), CUresult> {
        let stage = self.staging.as_f32_mut();
        stage[..batch.len()].copy_from_slice(batch);
        match unsafe { cuMemcpyHtoDAsync(dst, self.staging.ptr, batch.len() * 4, self.stream) } {
            0 => unsafe { check(cuStreamSynchronize(self.stream)) },
            e => Err(e),
        }
    }

    /// Mean of the `n` per-sample losses the loss kernel left in `losses` (device).
    pub fn mean_loss(&mut self, losses: CUdeviceptr, n: usize) -> Result<f32, CUresult> {
        unsafe {
            check(cuMemcpyDtoHAsync(self.staging.ptr, losses, n * 4, self.stream))?;
            check(cuStreamSynchronize(self.stream))?;
        }
        let sum: f32 = self.staging.as_f32()[..n].iter().sum(); // EXPECT: write_combined_host_read
        Ok(sum / n as f32)
    }
}

fn check(rc: CUresult) -> Result<(), CUresult> {
    if rc == 0 { Ok(()) } else { Err(rc) }
}
