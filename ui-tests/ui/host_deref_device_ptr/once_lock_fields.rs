// Device pointers kept in a struct behind a `OnceLock<Mutex<..>>`: copying a pointer field out
// of the struct reads the struct (host memory), not the device memory the field points to;
// making a host slice of the pointer and reading it does.
#![cfg_attr(cuda_lint, allow(cuda_lint::device_memory_leak))] // another lint's subject: the test code leaks
use std::sync::{Mutex, OnceLock};

use cudarc::driver::{result, sys};

struct Telemetry {
    stream: sys::CUstream,
    d_bins: sys::CUdeviceptr,
}

unsafe impl Send for Telemetry {}

static TELEMETRY: OnceLock<Mutex<Telemetry>> = OnceLock::new();

fn telemetry() -> Result<&'static Mutex<Telemetry>, result::DriverError> {
    if let Some(t) = TELEMETRY.get() {
        return Ok(t);
    }
    let t = unsafe {
        Telemetry {
            stream: result::stream::create(result::stream::StreamKind::NonBlocking)?,
            d_bins: result::malloc_sync(4096)?,
        }
    };
    Ok(TELEMETRY.get_or_init(|| Mutex::new(t)))
}

fn ok_pointer_fields_copied_out_and_used_by_the_driver() -> Result<(), result::DriverError> {
    let t = telemetry()?.lock().unwrap();
    let bins = t.d_bins;
    unsafe {
        result::memset_d8_async(bins, 0, 4096, t.stream)?;
        result::stream::synchronize(t.stream)?;
    }
    Ok(())
}

// The field's device memory is known from what every builder of `Telemetry` stores there.
fn fires_device_pointer_field_read_as_a_host_slice() -> Result<u32, result::DriverError> {
    let t = telemetry()?.lock().unwrap();
    let bins = unsafe { std::slice::from_raw_parts(t.d_bins as *const u32, 1024) }; //~ host_deref_device_ptr
    Ok(bins[0])
}

fn fires_device_pointer_field_of_a_local_mutex_read_as_a_host_slice() -> Result<u32, result::DriverError> {
    let cell = Mutex::new(Telemetry {
        stream: unsafe { result::stream::create(result::stream::StreamKind::NonBlocking)? },
        d_bins: unsafe { result::malloc_sync(4096)? },
    });
    let t = cell.lock().unwrap();
    let bins = unsafe { std::slice::from_raw_parts(t.d_bins as *const u32, 1024) }; //~ host_deref_device_ptr
    Ok(bins[0])
}

fn ok_pointer_field_of_a_local_mutex_copied_out() -> Result<(), result::DriverError> {
    let cell = Mutex::new(Telemetry {
        stream: unsafe { result::stream::create(result::stream::StreamKind::NonBlocking)? },
        d_bins: unsafe { result::malloc_sync(4096)? },
    });
    let t = cell.lock().unwrap();
    let bins = t.d_bins;
    unsafe { result::memset_d8_async(bins, 0, 4096, t.stream)? };
    Ok(())
}

fn main() {}
