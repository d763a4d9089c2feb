//! case: cudarc driver::result wrappers with a cleanup guard on the `?` path: host memory to free_host, device to free_sync
//! expect: none
use std::ffi::c_void;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use cudarc::driver::CudaContext;

enum Owned {
    Host(*mut c_void),
    Device(sys::CUdeviceptr),
}

/// Frees whatever it still holds if the function returns early.
struct Guard(Vec<Owned>);

impl Drop for Guard {
    fn drop(&mut self) {
        for o in self.0.drain(..).rev() {
            let _ = match o {
                Owned::Host(p) => unsafe { result::free_host(p) },
                Owned::Device(d) => unsafe { result::free_sync(d) },
            };
        }
    }
}

fn checksum_roundtrip(bytes: usize) -> Result<u64, DriverError> {
    let mut guard = Guard(Vec::new());
    let host = unsafe { result::malloc_host(bytes, 0) }?;
    guard.0.push(Owned::Host(host));
    let dev = unsafe { result::malloc_sync(bytes) }?;
    guard.0.push(Owned::Device(dev));
    let h = unsafe { std::slice::from_raw_parts_mut(host as *mut u8, bytes) };
    h.iter_mut().enumerate().for_each(|(i, b)| *b = i as u8);
    unsafe { result::memcpy_htod_sync(dev, h) }?;
    h.fill(0);
    unsafe { result::memcpy_dtoh_sync(h, dev) }?;
    Ok(h.iter().map(|&b| b as u64).sum())
    // guard drops here: free_sync(dev), then free_host(host)
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let sum = checksum_roundtrip(1 << 16)?;
    println!("checksum {sum}");
    Ok(())
}
