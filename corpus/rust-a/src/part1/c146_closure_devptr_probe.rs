//! case: per-layer device buffers allocated in a map closure (driver::result::malloc_sync); a probe collects the first word of each through an iterator closure that dereferences the device addresses; the log line formats only the address values
//! expect: host_deref_device_ptr=1
use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::DriverError;

pub struct Layers {
    pub ptrs: Vec<CUdeviceptr>,
    pub sizes: Vec<usize>,
}

pub fn allocate(sizes: &[usize]) -> Result<Layers, DriverError> {
    let ptrs = sizes
        .iter()
        .map(|&bytes| unsafe {
            let p = result::malloc_sync(bytes)?;
            result::memset_d8_sync(p, 0, bytes)?;
            Ok(p)
        })
        .collect::<Result<Vec<_>, DriverError>>()?;
    let layout: Vec<String> = ptrs.iter().map(|p| format!("{p:#x}")).collect();
    eprintln!("layers at {}", layout.join(", "));
    let probe: Vec<u32> = ptrs.iter().map(|&p| unsafe { *(p as *const u32) }).collect(); // EXPECT: host_deref_device_ptr
    eprintln!("first words: {probe:?}");
    Ok(Layers { ptrs, sizes: sizes.to_vec() })
}
