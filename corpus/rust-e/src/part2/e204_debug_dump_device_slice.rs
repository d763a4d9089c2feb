//! case: a tensor library's `Debug` helper prints the first elements of a device buffer by turning the raw device pointer into a host slice
//! expect: host_deref_device_ptr=1

use std::fmt::Write as _;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr};

pub struct DeviceTensor {
    pub buf: CudaSlice<f32>,
    pub dims: Vec<usize>,
    pub stream: Arc<CudaStream>,
}

impl DeviceTensor {
    pub fn describe(&self, max_items: usize) -> String {
        let mut s = String::new();
        let _ = write!(s, "DeviceTensor{:?} on device {}", self.dims, self.buf.ordinal());
        if let Some(head) = self.peek(max_items) {
            let _ = write!(s, " [");
            for (i, v) in head.iter().enumerate() {
                if i > 0 {
                    s.push_str(", ");
                }
                let _ = write!(s, "{v:.4}");
            }
            if self.buf.len() > head.len() {
                s.push_str(", ...");
            }
            s.push(']');
        }
        s
    }

    fn peek(&self, max_items: usize) -> Option<Vec<f32>> {
        if self.buf.is_empty() {
            return None;
        }
        // make sure the producer kernels are done before looking at the data
        self.stream.synchronize().ok()?;
        let (ptr, _guard) = self.buf.device_ptr(&self.stream);
        let k = max_items.min(self.buf.len());
        let head = unsafe { std::slice::from_raw_parts(ptr as *const f32, k) }; // EXPECT: host_deref_device_ptr
        Some(head.to_vec())
    }
}

impl std::fmt::Debug for DeviceTensor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe(8))
    }
}
