//! case: supernodal Cholesky panel staging buffer allocated with `cuMemAllocHost`; its release path still calls `cuMemHostUnregister` (left over from when the buffer was a registered `Vec`) before `cuMemFreeHost`: unregistering memory that was never registered
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError};

/// Page-locked staging for dense supernode panels moved to and from the GPU.
pub struct PanelStaging {
    ptr: *mut f64,
    capacity: usize,
}

impl PanelStaging {
    pub fn with_capacity(capacity: usize) -> Result<Self, DriverError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut p, capacity * std::mem::size_of::<f64>()).result()? };
        Ok(Self { ptr: p as *mut f64, capacity })
    }

    pub fn panel_mut(&mut self, rows: usize, cols: usize) -> &mut [f64] {
        assert!(rows * cols <= self.capacity);
        unsafe { std::slice::from_raw_parts_mut(self.ptr, rows * cols) }
    }

    pub fn panel(&self, rows: usize, cols: usize) -> &[f64] {
        assert!(rows * cols <= self.capacity);
        unsafe { std::slice::from_raw_parts(self.ptr, rows * cols) }
    }

    /// Stages a column-major panel and sends it to `d_panel` on `stream`.
    pub fn send(&mut self, panel: &[f64], d_panel: sys::CUdeviceptr, stream: &CudaStream) -> Result<(), DriverError> {
        let dst = unsafe { std::slice::from_raw_parts_mut(self.ptr, panel.len()) };
        dst.copy_from_slice(panel);
        unsafe { sys::cuMemcpyHtoDAsync_v2(d_panel, self.ptr as *const c_void, std::mem::size_of_val(panel), stream.cu_stream()).result() }
    }

    /// Brings a factored panel back; valid once `stream` is synchronized.
    pub fn receive(&mut self, d_panel: sys::CUdeviceptr, len: usize, stream: &CudaStream) -> Result<(), DriverError> {
        unsafe { sys::cuMemcpyDtoHAsync_v2(self.ptr as *mut c_void, d_panel, len * 8, stream.cu_stream()).result() }
    }

    pub fn release(self) -> Result<(), DriverError> {
        let ptr = self.ptr as *mut c_void;
        std::mem::forget(self);
        unsafe {
            sys::cuMemHostUnregister(ptr).result()?; // EXPECT: mismatched_free
            sys::cuMemFreeHost(ptr).result()
        }
    }
}

pub fn roundtrip_panel(ctx: &Arc<CudaContext>, panel: &[f64], rows: usize, cols: usize) -> Result<f64, DriverError> {
    let stream = ctx.new_stream()?;
    let mut staging = PanelStaging::with_capacity(rows * cols)?;
    let mut d_panel: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d_panel, rows * cols * 8).result()? };
    staging.send(panel, d_panel, &stream)?;
    // (the dense POTRF of the diagonal block runs here through cuSOLVER on `stream`)
    staging.receive(d_panel, rows * cols, &stream)?;
    stream.synchronize()?;
    let trace: f64 = (0..rows.min(cols)).map(|i| staging.panel(rows, cols)[i * rows + i]).sum();
    unsafe { sys::cuMemFree_v2(d_panel).result()? };
    staging.release()?;
    Ok(trace)
}
