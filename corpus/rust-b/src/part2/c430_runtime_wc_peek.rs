//! case: a sensor frame buffer from cudaHostAlloc with cudaHostAllocWriteCombined; its peek() helper reads samples back on the host for a live preview
//! expect: write_combined_host_read=1
use std::ffi::c_void;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys as rt;

pub struct SensorFrame {
    ptr: *mut u16,
    len: usize,
}

impl SensorFrame {
    pub fn new(len: usize) -> Result<Self, RuntimeError> {
        let mut p: *mut c_void = std::ptr::null_mut();
        unsafe { rt::cudaHostAlloc(&mut p, len * 2, rt::cudaHostAllocWriteCombined | rt::cudaHostAllocPortable).result()? };
        Ok(Self { ptr: p.cast(), len })
    }

    pub fn write_row(&mut self, row: usize, width: usize, samples: &[u16]) {
        let start = row * width;
        assert!(start + samples.len() <= self.len);
        unsafe { std::ptr::copy_nonoverlapping(samples.as_ptr(), self.ptr.add(start), samples.len()) };
    }

    /// Every `stride`-th sample, for the preview window.
    pub fn peek(&self, stride: usize) -> Vec<u16> {
        (0..self.len).step_by(stride.max(1)).map(|i| unsafe { *self.ptr.add(i) }).collect() // EXPECT: write_combined_host_read
    }
}

impl Drop for SensorFrame {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFreeHost(self.ptr.cast());
        }
    }
}

pub fn capture(rows: &[Vec<u16>], width: usize) -> Result<Vec<u16>, RuntimeError> {
    let mut frame = SensorFrame::new(rows.len() * width)?;
    let mut dev: *mut c_void = std::ptr::null_mut();
    let mut stream: rt::cudaStream_t = std::ptr::null_mut();
    unsafe {
        rt::cudaMalloc(&mut dev, frame.len * 2).result()?;
        rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
    }
    for (r, row) in rows.iter().enumerate() {
        frame.write_row(r, width, &row[..width.min(row.len())]);
    }
    let preview = frame.peek(64);
    unsafe {
        rt::cudaMemcpyAsync(dev, frame.ptr.cast(), frame.len * 2, rt::cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result()?;
        rt::cudaStreamSynchronize(stream).result()?;
        rt::cudaFree(dev).result()?;
        rt::cudaStreamDestroy(stream).result()?;
    }
    Ok(preview)
}
