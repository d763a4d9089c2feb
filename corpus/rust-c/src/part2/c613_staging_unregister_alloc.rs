//! case: host staging is either a registered `Vec` or a `cuMemHostAlloc` block depending on size; the release code unregisters both kinds before freeing, so the allocated block is passed to cuMemHostUnregister although it was never registered
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

const CUDA_SUCCESS: CUresult = 0;
const CU_MEMHOSTALLOC_PORTABLE: u32 = 0x01;
const CU_MEMHOSTREGISTER_PORTABLE: u32 = 0x01;
/// Above this, a dedicated pinned block beats registering the caller's Vec.
const ALLOC_THRESHOLD: usize = 16 << 20;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemHostAlloc(pp: *mut *mut c_void, bytesize: usize, flags: u32) -> CUresult;
    fn cuMemFreeHost(p: *mut c_void) -> CUresult;
    #[link_name = "cuMemHostRegister_v2"]
    fn cuMemHostRegister(p: *mut c_void, bytesize: usize, flags: u32) -> CUresult;
    fn cuMemHostUnregister(p: *mut c_void) -> CUresult;
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cuMemcpyHtoDAsync(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
}

pub enum HostStaging {
    /// The caller's Vec, page-locked in place.
    Registered { buf: Vec<u8> },
    /// A pinned block of our own for very large transfers.
    Allocated { ptr: *mut c_void, len: usize },
}

impl HostStaging {
    pub fn for_len(len: usize) -> Result<Self, CUresult> {
        if len >= ALLOC_THRESHOLD {
            let mut ptr = null_mut();
            let rc = unsafe { cuMemHostAlloc(&mut ptr, len, CU_MEMHOSTALLOC_PORTABLE) };
            if rc != CUDA_SUCCESS {
                return Err(rc);
            }
            Ok(HostStaging::Allocated { ptr, len })
        } else {
            let mut buf = vec![0u8; len];
            let rc = unsafe { cuMemHostRegister(buf.as_mut_ptr() as *mut c_void, len, CU_MEMHOSTREGISTER_PORTABLE) };
            if rc != CUDA_SUCCESS {
                return Err(rc);
            }
            Ok(HostStaging::Registered { buf })
        }
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        match self {
            HostStaging::Registered { buf } => buf.as_mut_slice(),
            HostStaging::Allocated { ptr, len } => unsafe { std::slice::from_raw_parts_mut(*ptr as *mut u8, *len) },
        }
    }

    fn raw(&self) -> (*mut c_void, usize) {
        match self {
            HostStaging::Registered { buf } => (buf.as_ptr() as *mut c_void, buf.len()),
            HostStaging::Allocated { ptr, len } => (*ptr, *len),
        }
    }

    /// Uploads the whole staging area and waits for it.
    pub fn upload(&self, dst: CUdeviceptr, stream: CUstream) -> Result<(), CUresult> {
        let (p, len) = self.raw();
        let rc = unsafe { cuMemcpyHtoDAsync(dst, p, len, stream) };
        if rc != CUDA_SUCCESS {
            return Err(rc);
        }
        match unsafe { cuStreamSynchronize(stream) } {
            CUDA_SUCCESS => Ok(()),
            e => Err(e),
        }
    }
}

impl Drop for HostStaging {
    fn drop(&mut self) {
        match self {
            HostStaging::Registered { buf } => unsafe {
                cuMemHostUnregister(buf.as_mut_ptr() as *mut c_void);
                // the Vec itself is freed by its own Drop afterwards
            },
            HostStaging::Allocated { ptr, .. } => unsafe {
                cuMemHostUnregister(*ptr); // EXPECT: mismatched_free
                cuMemFreeHost(*ptr);
            },
        }
    }
}

pub fn upload_blob(blob: &[u8], dst: CUdeviceptr, stream: CUstream) -> Result<(), CUresult> {
    let mut staging = HostStaging::for_len(blob.len())?;
    staging.as_mut_slice().copy_from_slice(blob);
    staging.upload(dst, stream)
}
