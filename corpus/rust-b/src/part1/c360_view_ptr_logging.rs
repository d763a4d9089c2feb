//! case: a logging helper prints a cudarc view's address (fine) and, in trace mode, formats the element behind it with ptr::read (a host read of device memory)
//! expect: host_deref_device_ptr=1
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, CudaView, DevicePtr};

pub fn log_address(stream: &CudaStream, v: &CudaView<'_, f32>) -> String {
    let (addr, _g) = v.device_ptr(stream);
    format!("view at {addr:#x}, {} elems", v.len())
}

pub fn trace_first(stream: &Arc<CudaStream>, buf: &CudaSlice<f32>, offset: usize) -> Result<String, cudarc::driver::DriverError> {
    stream.synchronize()?;
    let view = buf.slice(offset..);
    let line = log_address(stream, &view);
    let (addr, _g) = view.device_ptr(stream);
    let value = unsafe { std::ptr::read(addr as *const f32) }; // EXPECT: host_deref_device_ptr
    Ok(format!("{line}: first = {value}"))
}
