//! case: zero-copy tensor export for a plugin ABI (runtime crate): a DeviceBuffer is turned into a raw DevicePtr with into_raw for the consumer, released with cuMemFree_v2 by the normal release hook, but the export's validation-failure path gives it back with cuMemFreeHost
//! expect: mismatched_free=1

use cuda_lint_runtime::{Context, DevicePtr, PinnedBuffer, Result, Stream};
use cudarc::driver::sys;
use std::collections::HashMap;
use std::sync::Mutex;

#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ExportedTensor {
    pub data: u64,
    pub len: u64,
    pub dtype: u32,
    pub device: u32,
}

pub struct TensorExporter {
    live: Mutex<HashMap<u64, usize>>,
    max_len: usize,
}

fn is_finite_block(host: &[f32]) -> bool {
    host.iter().all(|v| v.is_finite())
}

impl TensorExporter {
    pub fn new(max_len: usize) -> Self {
        TensorExporter { live: Mutex::new(HashMap::new()), max_len }
    }

    /// Uploads `host` (page-locked) and hands the device memory over to the consumer.
    pub fn export(&self, ctx: &Context, stream: &Stream, host: &PinnedBuffer<f32>) -> Result<Option<ExportedTensor>> {
        let mut buf = ctx.alloc::<f32>(host.len())?;
        unsafe { stream.copy_htod_async(&mut buf, host)? };
        stream.synchronize()?;
        let raw: DevicePtr = buf.into_raw();

        if host.len() > self.max_len || !is_finite_block(host) {
            // Rejected: nobody will ever release this handle, so do it now.
            unsafe {
                sys::cuMemFreeHost(raw.as_raw() as *mut std::ffi::c_void); // EXPECT: mismatched_free
            }
            return Ok(None);
        }
        self.live.lock().unwrap().insert(raw.as_raw(), host.len());
        Ok(Some(ExportedTensor { data: raw.as_raw(), len: host.len() as u64, dtype: 0, device: ctx.ordinal() as u32 }))
    }

    /// The consumer's release hook.
    pub fn release(&self, ctx: &Context, tensor: ExportedTensor) -> Result<()> {
        if self.live.lock().unwrap().remove(&tensor.data).is_none() {
            return Ok(());
        }
        ctx.bind_to_thread()?;
        unsafe {
            sys::cuMemFree_v2(tensor.data);
        }
        Ok(())
    }
}
