//! case: a VMM-backed growable vector compacts its live elements with a kernel and then shrinks by unmapping the tail chunks right away; cuMemUnmap does not wait for the compaction kernel, which is still reading those chunks
//! expect: missing_sync=1

use std::ffi::c_void;

use cudarc::driver::{result, sys, DriverError};

pub const COMPACT_SRC: &str = r#"
extern "C" __global__ void compact_live(const float* src, const unsigned int* live_idx, float* dst, unsigned int live) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < live) dst[i] = src[live_idx[i]];
}
"#;

pub struct VmmVec {
    va: sys::CUdeviceptr,
    chunk: usize,
    chunks: Vec<sys::CUmemGenericAllocationHandle>,
    len: usize,
}

impl VmmVec {
    pub fn committed_bytes(&self) -> usize {
        self.chunks.len() * self.chunk
    }

    /// Moves the `live` elements listed in `live_idx` to the front (through `scratch`) and
    /// gives the chunks that are no longer needed back to the driver.
    pub unsafe fn compact_and_shrink(&mut self, compact: sys::CUfunction, stream: sys::CUstream, live_idx: sys::CUdeviceptr, live: u32, scratch: sys::CUdeviceptr) -> Result<(), DriverError> {
        let (mut src, mut idx, mut dst, mut live_v) = (self.va, live_idx, scratch, live);
        let mut params: [*mut c_void; 4] = [
            &mut src as *mut _ as *mut c_void,
            &mut idx as *mut _ as *mut c_void,
            &mut dst as *mut _ as *mut c_void,
            &mut live_v as *mut _ as *mut c_void,
        ];
        unsafe {
            result::launch_kernel(compact, (live.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params)?;
        }

        let keep = (live as usize * 4).div_ceil(self.chunk).max(1);
        while self.chunks.len() > keep {
            let h = self.chunks.pop().expect("len > keep >= 1");
            let at = self.va + (self.chunks.len() * self.chunk) as u64;
            unsafe {
                sys::cuMemUnmap(at, self.chunk).result()?; // EXPECT: missing_sync
                sys::cuMemRelease(h).result()?;
            }
        }
        unsafe {
            sys::cuMemcpyDtoDAsync_v2(self.va, scratch, live as usize * 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        self.len = live as usize;
        Ok(())
    }
}
