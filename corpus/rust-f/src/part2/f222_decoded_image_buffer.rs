//! case: image decoder service declares the CUDA runtime functions it needs in its own extern "C" block; decoded images live in cudaMallocHost memory (moved off malloc for faster uploads) but DecodedImage's Drop still hands them to libc::free
//! expect: mismatched_free=1
use std::ffi::{c_int, c_void};

#[allow(non_camel_case_types)]
type cudaStream_t = *mut c_void;

const CUDA_MEMCPY_HOST_TO_DEVICE: c_int = 1;
const CUDA_STREAM_NON_BLOCKING: u32 = 1;

unsafe extern "C" {
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFreeHost(ptr: *mut c_void) -> c_int;
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(ptr: *mut c_void) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: cudaStream_t) -> c_int;
    fn cudaStreamCreateWithFlags(stream: *mut cudaStream_t, flags: u32) -> c_int;
    fn cudaStreamSynchronize(stream: cudaStream_t) -> c_int;
    fn cudaStreamDestroy(stream: cudaStream_t) -> c_int;
}

#[derive(Debug)]
pub struct CudaError(pub c_int);

fn ck(code: c_int) -> Result<(), CudaError> {
    if code == 0 { Ok(()) } else { Err(CudaError(code)) }
}

/// An RGBA8 image decoded straight into page-locked memory.
pub struct DecodedImage {
    pub width: u32,
    pub height: u32,
    data: *mut u8,
}

impl DecodedImage {
    pub fn len(&self) -> usize {
        self.width as usize * self.height as usize * 4
    }
    pub fn as_ptr(&self) -> *const u8 {
        self.data
    }
}

impl Drop for DecodedImage {
    fn drop(&mut self) {
        unsafe { libc::free(self.data.cast()) }; // EXPECT: mismatched_free
    }
}

/// Decodes a (trivial, uncompressed) PPM-like payload into pinned memory.
pub fn decode(payload: &[u8], width: u32, height: u32) -> Result<DecodedImage, CudaError> {
    let len = width as usize * height as usize * 4;
    let mut p: *mut c_void = std::ptr::null_mut();
    ck(unsafe { cudaMallocHost(&mut p, len) })?;
    let out = unsafe { std::slice::from_raw_parts_mut(p.cast::<u8>(), len) };
    for (px, rgb) in out.chunks_exact_mut(4).zip(payload.chunks_exact(3)) {
        px[..3].copy_from_slice(rgb);
        px[3] = 255;
    }
    Ok(DecodedImage { width, height, data: p.cast() })
}

pub struct Uploader {
    stream: cudaStream_t,
}

impl Uploader {
    pub fn new() -> Result<Self, CudaError> {
        let mut stream = std::ptr::null_mut();
        ck(unsafe { cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING) })?;
        Ok(Uploader { stream })
    }

    /// Uploads a batch of images into one device allocation; the images are released once
    /// the copies are done.
    pub fn upload_batch(&self, images: Vec<DecodedImage>) -> Result<(*mut c_void, Vec<usize>), CudaError> {
        let total: usize = images.iter().map(DecodedImage::len).sum();
        let mut dev: *mut c_void = std::ptr::null_mut();
        ck(unsafe { cudaMalloc(&mut dev, total) })?;
        let mut offsets = Vec::with_capacity(images.len());
        let mut off = 0usize;
        let mut enqueued = Ok(());
        for img in &images {
            let dst = unsafe { dev.cast::<u8>().add(off) };
            enqueued = ck(unsafe { cudaMemcpyAsync(dst.cast(), img.as_ptr().cast(), img.len(), CUDA_MEMCPY_HOST_TO_DEVICE, self.stream) });
            if enqueued.is_err() {
                break;
            }
            offsets.push(off);
            off += img.len();
        }
        // Drain before anything is released, whether or not every copy was enqueued.
        let drained = ck(unsafe { cudaStreamSynchronize(self.stream) });
        if drained.is_err() {
            std::mem::forget(images);
            return Err(drained.unwrap_err());
        }
        drop(images);
        if let Err(e) = enqueued {
            unsafe { cudaFree(dev) };
            return Err(e);
        }
        Ok((dev, offsets))
    }
}

impl Drop for Uploader {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaStreamDestroy(self.stream);
        }
    }
}
