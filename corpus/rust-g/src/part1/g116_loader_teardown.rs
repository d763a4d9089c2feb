//! case: image data-loader whose batch buffers used to be `malloc` + `cuMemHostRegister` and were switched to `cuMemAllocHost`; the teardown path was not updated and still unregisters each buffer and hands it to `libc::free`
//! expect: mismatched_free=2

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub struct BatchBuffers {
    host: Vec<*mut c_void>,
    device: Vec<sys::CUdeviceptr>,
    bytes: usize,
    stream: sys::CUstream,
}

impl BatchBuffers {
    pub fn new(n: usize, bytes: usize, stream: sys::CUstream) -> Result<Self> {
        let mut host = Vec::with_capacity(n);
        let mut device = Vec::with_capacity(n);
        for _ in 0..n {
            let mut p: *mut c_void = std::ptr::null_mut();
            unsafe { sys::cuMemAllocHost_v2(&mut p, bytes).result()? };
            host.push(p);
            let mut d = 0;
            unsafe { sys::cuMemAlloc_v2(&mut d, bytes).result()? };
            device.push(d);
        }
        Ok(BatchBuffers { host, device, bytes, stream })
    }

    /// Decodes `images` (u8 HWC) into slot `i` as normalised f32 and uploads it.
    pub fn load(&mut self, i: usize, images: &[u8]) -> Result<sys::CUdeviceptr> {
        let n = (self.bytes / 4).min(images.len());
        let dst = unsafe { std::slice::from_raw_parts_mut(self.host[i] as *mut f32, n) };
        dst.iter_mut().zip(images).for_each(|(d, &px)| *d = (px as f32 / 255.0 - 0.5) / 0.25);
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.device[i], self.host[i], n * 4, self.stream).result()? };
        Ok(self.device[i])
    }

    pub fn shutdown(mut self) -> Result<()> {
        unsafe { sys::cuStreamSynchronize(self.stream).result()? };
        for d in self.device.drain(..) {
            unsafe { sys::cuMemFree_v2(d).result()? };
        }
        for p in self.host.drain(..) {
            unsafe {
                let _ = sys::cuMemHostUnregister(p); // EXPECT: mismatched_free
                libc::free(p); // EXPECT: mismatched_free
            }
        }
        Ok(())
    }
}

pub fn epoch(images: &[Vec<u8>], batch_bytes: usize) -> Result<usize> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let mut buffers = BatchBuffers::new(2, batch_bytes, stream)?;
    let mut uploaded = 0;
    for (k, img) in images.iter().enumerate() {
        if k >= 2 {
            // slot k % 2 was last uploaded two batches ago
            unsafe { result::stream::synchronize(stream)? };
        }
        buffers.load(k % 2, img)?;
        uploaded += 1;
    }
    buffers.shutdown()?;
    unsafe { result::stream::destroy(stream)? };
    Ok(uploaded)
}
