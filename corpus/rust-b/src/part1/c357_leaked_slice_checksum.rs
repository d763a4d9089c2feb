//! case: an FFI hand-off leaks a cudarc slice to a raw CUdeviceptr and then checksums it on the host through that pointer
//! expect: host_deref_device_ptr=1
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream};

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub struct Handoff {
    pub ptr: CUdeviceptr,
    pub len: usize,
    pub checksum: u32,
}

pub fn hand_off(stream: &Arc<CudaStream>, data: CudaSlice<u8>) -> Res<Handoff> {
    let len = data.len();
    stream.synchronize()?;
    let ptr = data.leak();
    let bytes = unsafe { std::slice::from_raw_parts(ptr as *const u8, len) }; // EXPECT: host_deref_device_ptr
    let checksum = bytes.chunks(4).fold(0u32, |acc, c| acc.rotate_left(5) ^ c.iter().fold(0u32, |a, &b| (a << 8) | b as u32));
    Ok(Handoff { ptr, len, checksum })
}
