//! case: packet classifier uploads each capture batch and its packet offsets from Vecs with cuMemcpyHtoDAsync (large pageable copies) on a non-blocking stream, classifies it there, and reads the per-class counters back with blocking cuMemcpyDtoH, which runs on the legacy default stream and does not wait for the non-blocking stream's kernel
//! expect: missing_sync=1, pageable_async_copy=2

use std::ffi::{c_void, CString};
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const CLASSIFY_SRC: &str = r#"
extern "C" __global__ void classify(const unsigned char* frames, const unsigned int* offsets, int n_packets,
                                   unsigned int* class_counts) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n_packets) return;
    const unsigned char* eth = frames + offsets[p];
    unsigned short ethertype = (eth[12] << 8) | eth[13];
    int cls = 0;
    if (ethertype == 0x0800) {
        unsigned char proto = eth[23];
        cls = proto == 6 ? 1 : proto == 17 ? 2 : proto == 1 ? 3 : 4;
    } else if (ethertype == 0x86dd) cls = 5;
    else if (ethertype == 0x0806) cls = 6;
    atomicAdd(&class_counts[cls], 1u);
}
"#;

pub const CLASSES: usize = 8;

pub struct Classifier {
    _ctx: Arc<CudaContext>,
    func: sys::CUfunction,
    stream: sys::CUstream,
    frames: sys::CUdeviceptr,
    offsets: sys::CUdeviceptr,
    counts: sys::CUdeviceptr,
    cap_bytes: usize,
    cap_packets: usize,
}

impl Classifier {
    pub fn new(cap_bytes: usize, cap_packets: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let ctx = CudaContext::new(0)?;
        let image = CString::new(compile_ptx(CLASSIFY_SRC)?.to_src())?;
        let (mut module, mut func, mut stream) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
        let (mut frames, mut offsets, mut counts) = (0, 0, 0);
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
            sys::cuModuleGetFunction(&mut func, module, c"classify".as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut frames, cap_bytes).result()?;
            sys::cuMemAlloc_v2(&mut offsets, cap_packets * 4).result()?;
            sys::cuMemAlloc_v2(&mut counts, CLASSES * 4).result()?;
            // running totals since start-up; zeroed once and made visible to every stream
            sys::cuMemsetD32_v2(counts, 0, CLASSES).result()?;
            sys::cuCtxSynchronize().result()?;
        }
        Ok(Classifier { _ctx: ctx, func, stream, frames, offsets, counts, cap_bytes, cap_packets })
    }

    /// `frames` holds the captured packets back to back; `offsets` where each one starts.
    /// Returns the per-class totals since start-up.
    pub fn classify(&mut self, frames: &Vec<u8>, offsets: &Vec<u32>) -> Result<[u32; CLASSES], DriverError> {
        let bytes = frames.len().min(self.cap_bytes);
        let n = offsets.len().min(self.cap_packets);
        let mut counts = [0u32; CLASSES];
        let (mut f, mut o, mut c, mut n_i) = (self.frames, self.offsets, self.counts, n as i32);
        let mut params = [
            &mut f as *mut u64 as *mut c_void,
            &mut o as *mut u64 as *mut c_void,
            &mut n_i as *mut i32 as *mut c_void,
            &mut c as *mut u64 as *mut c_void,
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.frames, frames.as_ptr() as *const c_void, bytes, self.stream).result()?; // EXPECT: pageable_async_copy
            sys::cuMemcpyHtoDAsync_v2(self.offsets, offsets.as_ptr() as *const c_void, n * 4, self.stream).result()?; // EXPECT: pageable_async_copy
            sys::cuLaunchKernel(self.func, (n as u32).div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()).result()?;
            sys::cuMemcpyDtoH_v2(counts.as_mut_ptr() as *mut c_void, self.counts, CLASSES * 4).result()?; // EXPECT: missing_sync
        }
        Ok(counts)
    }
}

impl Drop for Classifier {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            for p in [self.frames, self.offsets, self.counts] {
                sys::cuMemFree_v2(p);
            }
            sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
