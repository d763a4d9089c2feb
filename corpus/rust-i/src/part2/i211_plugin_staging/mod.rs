//! case: plugin host for a media transcoding service: plugins are trait objects owning their own buffers; the decoder plugin's host scratch is malloc'd and freed with free (fine), the GPU plugin's device buffer goes back through cuMemFree (fine), and the upload plugin's shutdown frees its cuMemHostAlloc staging area with cuMemFreeHost (fine), but its init error path (device allocation failed) releases that staging area with libc::free
//! expect: mismatched_free=1

mod plugins;

pub use plugins::{DecoderPlugin, GpuFilterPlugin, UploadPlugin};

use cudarc::driver::sys::CUresult;
use std::collections::BTreeMap;

pub trait Plugin: Send {
    fn name(&self) -> &'static str;
    fn init(&mut self, frame_bytes: usize) -> Result<(), CUresult>;
    fn process(&mut self, frame: &mut [u8]) -> Result<(), CUresult>;
    fn shutdown(&mut self);
}

#[derive(Default)]
pub struct PluginHost {
    plugins: BTreeMap<u32, Box<dyn Plugin>>,
    frame_bytes: usize,
}

impl PluginHost {
    pub fn new(frame_bytes: usize) -> Self {
        PluginHost { plugins: BTreeMap::new(), frame_bytes }
    }

    pub fn register(&mut self, order: u32, mut plugin: Box<dyn Plugin>) -> Result<(), CUresult> {
        plugin.init(self.frame_bytes)?;
        if let Some(mut old) = self.plugins.insert(order, plugin) {
            old.shutdown();
        }
        Ok(())
    }

    pub fn run(&mut self, frame: &mut [u8]) -> Result<(), (&'static str, CUresult)> {
        for p in self.plugins.values_mut() {
            p.process(frame).map_err(|e| (p.name(), e))?;
        }
        Ok(())
    }
}

impl Drop for PluginHost {
    fn drop(&mut self) {
        for p in self.plugins.values_mut().rev() {
            p.shutdown();
        }
    }
}

pub fn default_pipeline(frame_bytes: usize, stream: cudarc::driver::sys::CUstream) -> Result<PluginHost, CUresult> {
    let mut host = PluginHost::new(frame_bytes);
    host.register(0, Box::new(DecoderPlugin::default()))?;
    host.register(1, Box::new(UploadPlugin::new(stream)))?;
    host.register(2, Box::new(GpuFilterPlugin::new(stream)))?;
    Ok(host)
}
