//! case: a feature-store client with its own libcudart bindings uploads each feature matrix with `cudaMemcpyAsync` straight from the caller's `&[f32]` (a Vec built by the parser): the host side is pageable, so the "async" copy stages through the driver and blocks
//! expect: pageable_async_copy=1

use std::ffi::c_void;

#[allow(non_camel_case_types)]
type cudaStream_t = *mut c_void;
#[allow(non_camel_case_types)]
type cudaError_t = i32;

// cudaMemcpyKind
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaStreamCreateWithFlags(stream: *mut cudaStream_t, flags: u32) -> cudaError_t;
    fn cudaStreamSynchronize(stream: cudaStream_t) -> cudaError_t;
    fn cudaStreamDestroy(stream: cudaStream_t) -> cudaError_t;
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> cudaError_t;
    fn cudaFree(ptr: *mut c_void) -> cudaError_t;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: cudaStream_t) -> cudaError_t;
}

pub struct FeatureMatrix {
    pub rows: usize,
    pub cols: usize,
    pub values: Vec<f32>,
}

pub struct GpuFeatureStore {
    stream: cudaStream_t,
    tables: Vec<(String, *mut c_void, usize)>,
}

impl GpuFeatureStore {
    pub fn new() -> Result<Self, cudaError_t> {
        let mut stream = std::ptr::null_mut();
        match unsafe { cudaStreamCreateWithFlags(&mut stream, 1) } {
            0 => Ok(Self { stream, tables: Vec::new() }),
            e => Err(e),
        }
    }

    pub fn put(&mut self, name: &str, m: &FeatureMatrix) -> Result<(), cudaError_t> {
        let bytes = m.rows * m.cols * std::mem::size_of::<f32>();
        assert_eq!(m.values.len(), m.rows * m.cols);
        let mut dev = std::ptr::null_mut();
        let err = unsafe { cudaMalloc(&mut dev, bytes) };
        if err != 0 {
            return Err(err);
        }
        let err = unsafe {
            cudaMemcpyAsync(dev, m.values.as_ptr() as *const c_void, bytes, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream) // EXPECT: pageable_async_copy
        };
        if err != 0 {
            unsafe { cudaFree(dev) };
            return Err(err);
        }
        self.tables.push((name.to_owned(), dev, bytes));
        Ok(())
    }

    pub fn flush(&self) -> Result<(), cudaError_t> {
        match unsafe { cudaStreamSynchronize(self.stream) } {
            0 => Ok(()),
            e => Err(e),
        }
    }
}

impl Drop for GpuFeatureStore {
    fn drop(&mut self) {
        let _ = self.flush();
        for (_, dev, _) in self.tables.drain(..) {
            unsafe { cudaFree(dev) };
        }
        unsafe { cudaStreamDestroy(self.stream) };
    }
}
