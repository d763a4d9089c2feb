//! case: a tensor type stores either host data or a raw device pointer taken from cudarc with `CudaSlice::leak`; its `Debug`-style `peek` helper matches on the storage and, for the device arm, dereferences the device pointer on the host
//! expect: host_deref_device_ptr=1
use std::fmt::Write;
use std::sync::Arc;

use cudarc::driver::{sys, CudaSlice, CudaStream};

pub enum Storage {
    Host(Vec<f32>),
    /// Leaked from a `CudaSlice` so that the graph executor can own the lifetime.
    Device { ptr: sys::CUdeviceptr, len: usize, stream: Arc<CudaStream> },
}

pub struct Tensor {
    pub shape: Vec<usize>,
    pub storage: Storage,
}

impl Tensor {
    pub fn from_device(shape: Vec<usize>, data: CudaSlice<f32>) -> Self {
        let len = data.len();
        let stream = data.stream().clone();
        let ptr = data.leak();
        Tensor { shape, storage: Storage::Device { ptr, len, stream } }
    }

    /// First few values, for log lines and assertion messages.
    pub fn peek(&self, n: usize) -> String {
        let mut s = String::from("[");
        match &self.storage {
            Storage::Host(v) => {
                for x in v.iter().take(n) {
                    let _ = write!(s, "{x:.4}, ");
                }
            }
            Storage::Device { ptr, len, stream } => {
                let _ = stream.synchronize();
                let first = unsafe { std::slice::from_raw_parts(*ptr as *const f32, (*len).min(n)) }.to_vec(); // EXPECT: host_deref_device_ptr
                for x in first {
                    let _ = write!(s, "{x:.4}, ");
                }
            }
        }
        s.push(']');
        s
    }
}
