//! case: a generic readback over cudarc's alloc_pinned_with_flags(len, 0) (not write-combined): the host reads the results after synchronizing
//! expect: none
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits};

pub struct Readback<T> {
    stream: Arc<CudaStream>,
    host: PinnedHostSlice<T>,
}

impl<T: DeviceRepr + ValidAsZeroBits + Copy + PartialOrd> Readback<T> {
    pub fn new(stream: Arc<CudaStream>, len: usize) -> Result<Self, DriverError> {
        // flags 0: plain cached page-locked memory, meant to be read by the CPU
        let host = unsafe { stream.context().alloc_pinned_with_flags::<T>(len, 0) }?;
        Ok(Readback { stream, host })
    }

    pub fn fetch(&mut self, src: &CudaSlice<T>) -> Result<&[T], DriverError> {
        self.stream.memcpy_dtoh(src, &mut self.host)?;
        self.stream.synchronize()?;
        self.host.as_slice()
    }

    pub fn max(&mut self, src: &CudaSlice<T>) -> Result<Option<T>, DriverError> {
        let values = self.fetch(src)?;
        Ok(values.iter().copied().fold(None, |m, v| match m {
            Some(m) if m >= v => Some(m),
            _ => Some(v),
        }))
    }
}

pub fn run() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let data = stream.alloc_zeros::<f64>(10_000)?;
    let mut rb = Readback::new(stream.clone(), 10_000)?;
    println!("max = {:?}", rb.max(&data)?);
    Ok(())
}
