use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr, DriverError, PinnedHostSlice, ValidAsZeroBits};

pub trait ColumnSink<T> {
    fn consume(&mut self, name: &str, values: &[T]);
}

pub struct GpuColumn<T: DeviceRepr + ValidAsZeroBits> {
    name: String,
    pub(super) dev: CudaSlice<T>,
    host: PinnedHostSlice<T>,
    host_fresh: bool,
}

impl<T: DeviceRepr + ValidAsZeroBits> GpuColumn<T> {
    pub fn zeros(ctx: &Arc<CudaContext>, stream: &Arc<CudaStream>, name: &str, rows: usize) -> Result<Self, DriverError> {
        Ok(Self {
            name: name.to_string(),
            dev: stream.alloc_zeros::<T>(rows)?,
            host: unsafe { ctx.alloc_pinned_with_flags::<T>(rows, 0)? },
            host_fresh: false,
        })
    }

    pub fn device(&mut self) -> &mut CudaSlice<T> {
        self.host_fresh = false;
        &mut self.dev
    }

    pub fn materialize(&mut self, stream: &Arc<CudaStream>, sink: &mut dyn ColumnSink<T>) -> Result<(), DriverError> {
        stream.memcpy_dtoh(&self.dev, &mut self.host)?;
        let copied = stream.record_event(None)?;
        copied.synchronize()?;
        self.host_fresh = true;
        sink.consume(&self.name, self.host.as_slice()?);
        Ok(())
    }

    /// The last materialized values (materialize first).
    pub fn host_values(&self) -> Result<&[T], DriverError> {
        assert!(self.host_fresh, "column {} not materialized", self.name);
        self.host.as_slice()
    }
}
