//! case: a video encoder's write-combined upload buffer (cudaHostAlloc) released through a shared host-memory helper that calls libc::free
//! expect: mismatched_free=1
mod sub;

use std::ffi::c_void;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys as rt;

/// Write-combined staging for raw NV12 frames: the host only writes it.
pub struct UploadBuffer {
    ptr: *mut u8,
    len: usize,
}

impl UploadBuffer {
    pub fn new(len: usize) -> Result<Self, RuntimeError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe { rt::cudaHostAlloc(&mut p, len, rt::cudaHostAllocWriteCombined).result()? };
        Ok(Self { ptr: p.cast(), len })
    }

    pub fn write_frame(&mut self, y: &[u8], uv: &[u8]) {
        let dst = unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) };
        dst[..y.len()].copy_from_slice(y);
        dst[y.len()..y.len() + uv.len()].copy_from_slice(uv);
    }
}

impl Drop for UploadBuffer {
    fn drop(&mut self) {
        sub::release_host(self.ptr.cast());
    }
}

pub struct Encoder {
    upload: UploadBuffer,
    scratch: *mut c_void,
    dev_frame: *mut c_void,
    stream: rt::cudaStream_t,
}

impl Encoder {
    pub fn new(width: usize, height: usize) -> Result<Self, RuntimeError> {
        let frame_bytes = width * height * 3 / 2;
        let upload = UploadBuffer::new(frame_bytes)?;
        let scratch = sub::alloc_host(4096);
        let mut dev_frame = std::ptr::null_mut();
        let mut stream = std::ptr::null_mut();
        unsafe {
            rt::cudaMalloc(&mut dev_frame, frame_bytes).result()?;
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
        }
        Ok(Self { upload, scratch, dev_frame, stream })
    }

    pub fn submit(&mut self, y: &[u8], uv: &[u8]) -> Result<(), RuntimeError> {
        self.upload.write_frame(y, uv);
        unsafe {
            rt::cudaMemcpyAsync(
                self.dev_frame,
                self.upload.ptr.cast(),
                y.len() + uv.len(),
                rt::cudaMemcpyKind::cudaMemcpyHostToDevice,
                self.stream,
            )
            .result()?;
            rt::cudaStreamSynchronize(self.stream).result()
        }
    }
}

impl Drop for Encoder {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.stream);
            let _ = rt::cudaFree(self.dev_frame);
            let _ = rt::cudaStreamDestroy(self.stream);
        }
        sub::release_host(self.scratch);
        // `self.upload` drops after this, through the same helper.
    }
}
