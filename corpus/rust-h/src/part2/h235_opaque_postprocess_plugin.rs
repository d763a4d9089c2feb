//! case: inference server with post-processing plugins registered at start-up as `extern "C"` function pointers in a `OnceLock` registry; the host hands a plugin its pinned output buffer and the stream, then reads the buffer with no synchronization: whether the plugin enqueued asynchronous work on it or finished on the host is unknowable here, and nothing in the code shows a misuse
//! expect: none

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, OnceLock};

use cudarc::driver::sys::CUstream;
use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

/// `(device_logits, rows, cols, host_out, stream) -> status`
pub type PostprocessFn = unsafe extern "C" fn(u64, u32, u32, *mut c_void, CUstream) -> i32;

static PLUGINS: OnceLock<HashMap<&'static str, PostprocessFn>> = OnceLock::new();

pub fn install_plugins(table: HashMap<&'static str, PostprocessFn>) -> bool {
    PLUGINS.set(table).is_ok()
}

#[derive(Debug)]
pub enum PostError {
    NoSuchPlugin(String),
    PluginFailed(i32),
    Cuda(DriverError),
}

impl From<DriverError> for PostError {
    fn from(e: DriverError) -> Self {
        PostError::Cuda(e)
    }
}

pub struct Postprocessor {
    stream: Arc<CudaStream>,
    labels_host: PinnedHostSlice<u32>,
}

impl Postprocessor {
    pub fn new(ctx: &Arc<CudaContext>, max_rows: usize) -> Result<Self, DriverError> {
        Ok(Self {
            stream: ctx.new_stream()?,
            labels_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_rows, 0)? },
        })
    }

    pub fn run(&mut self, plugin: &str, logits: &CudaSlice<f32>, logits_ptr: u64, rows: u32, cols: u32) -> Result<Vec<u32>, PostError> {
        let f = PLUGINS
            .get()
            .and_then(|t| t.get(plugin).copied())
            .ok_or_else(|| PostError::NoSuchPlugin(plugin.to_string()))?;
        debug_assert!(logits.len() >= (rows * cols) as usize);
        let out = self.labels_host.as_mut_ptr()?;
        let status = unsafe { f(logits_ptr, rows, cols, out.cast(), self.stream.cu_stream()) };
        if status != 0 {
            return Err(PostError::PluginFailed(status));
        }
        Ok(self.labels_host.as_slice()?[..rows as usize].to_vec())
    }
}
