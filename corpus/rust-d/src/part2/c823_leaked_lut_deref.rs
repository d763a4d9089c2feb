//! case: a plugin bridge uploads a small gamma LUT with cudarc, `leak`s the CudaSlice to hand a raw `CUdeviceptr` to a C plugin, and logs the first entry by dereferencing that device address on the host
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaStream, DriverError};

static GAMMA_LUT: [u16; 1024] = {
    let mut lut = [0u16; 1024];
    let mut i = 0;
    while i < 1024 {
        // cheap square-root-ish curve, computed at compile time
        lut[i] = ((i * i) / 16) as u16;
        i += 1;
    }
    lut
};

/// What the C plugin receives (`struct plugin_tables` on the C side).
#[repr(C)]
pub struct PluginTables {
    pub gamma: CUdeviceptr,
    pub gamma_len: u32,
}

impl PluginTables {
    /// Uploads the tables and gives up ownership of the device memory to the plugin; the plugin
    /// calls back into `release` when it unloads.
    pub fn export(stream: &Arc<CudaStream>) -> Result<PluginTables, DriverError> {
        let lut = stream.clone_htod(&GAMMA_LUT)?;
        stream.synchronize()?;
        let gamma = lut.leak();
        let first = unsafe { *(gamma as *const u16) }; // EXPECT: host_deref_device_ptr
        println!("exporting gamma LUT at {gamma:#x}, lut[0] = {first}");
        Ok(PluginTables { gamma, gamma_len: GAMMA_LUT.len() as u32 })
    }

    pub fn release(self) -> Result<(), DriverError> {
        unsafe { result::free_sync(self.gamma) }
    }
}
