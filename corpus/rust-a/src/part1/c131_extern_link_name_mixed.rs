//! case: the program's own extern "C" block binds cudaMemcpyAsync under another Rust name (#[link_name]); the log uploader copies from a Vec (pageable), the frame uploader from cudaMallocHost memory
//! expect: pageable_async_copy=1
use std::ffi::c_void;
use std::ptr;

type Stream = *mut c_void;
const H2D: u32 = 1;

unsafe extern "C" {
    #[link_name = "cudaMemcpyAsync"]
    fn memcpy_async(dst: *mut c_void, src: *const c_void, bytes: usize, kind: u32, stream: Stream) -> i32;
    #[link_name = "cudaMallocHost"]
    fn malloc_host(ptr: *mut *mut c_void, bytes: usize) -> i32;
    fn cudaStreamSynchronize(stream: Stream) -> i32;
}

pub struct Link {
    pub stream: Stream,
    pub dev_log: *mut c_void,
    pub dev_frame: *mut c_void,
}

impl Link {
    pub fn send_log(&self, lines: &[String]) -> i32 {
        let mut blob: Vec<u8> = lines.iter().flat_map(|l| l.bytes().chain(std::iter::once(b'\n'))).collect();
        blob.resize(blob.len().next_multiple_of(256), 0);
        unsafe { memcpy_async(self.dev_log, blob.as_ptr().cast(), blob.len(), H2D, self.stream) } // EXPECT: pageable_async_copy
    }

    pub fn send_frame(&self, pixels: &[u8]) -> i32 {
        let mut staging: *mut c_void = ptr::null_mut();
        unsafe {
            let rc = malloc_host(&mut staging, pixels.len());
            if rc != 0 {
                return rc;
            }
            ptr::copy_nonoverlapping(pixels.as_ptr(), staging.cast::<u8>(), pixels.len());
            let rc = memcpy_async(self.dev_frame, staging, pixels.len(), H2D, self.stream);
            if rc != 0 {
                return rc;
            }
            cudaStreamSynchronize(self.stream)
            // the staging buffer is kept for the next frame (leaked here on purpose for brevity)
        }
    }
}
