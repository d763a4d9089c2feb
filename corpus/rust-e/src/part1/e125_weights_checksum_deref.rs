//! case: model weight loader uploads each tensor with `clone_htod` from the Vec it parsed (large pageable copies), then "verifies" the upload by viewing the raw device pointer as a host slice and checksumming it on the CPU
//! expect: pageable_async_copy=1, host_deref_device_ptr=1

use std::collections::BTreeMap;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError};

pub struct TensorSpec {
    pub name: String,
    pub shape: Vec<usize>,
    pub data: Vec<f32>,
    pub checksum: u64,
}

fn fnv1a(values: impl Iterator<Item = f32>) -> u64 {
    values.fold(0xcbf29ce484222325u64, |h, v| {
        v.to_bits().to_le_bytes().iter().fold(h, |h, &b| (h ^ b as u64).wrapping_mul(0x100000001b3))
    })
}

#[derive(Debug)]
pub enum LoadError {
    Cuda(DriverError),
    Corrupt(String),
}

impl From<DriverError> for LoadError {
    fn from(e: DriverError) -> Self {
        LoadError::Cuda(e)
    }
}

pub struct WeightStore {
    stream: Arc<CudaStream>,
    tensors: BTreeMap<String, (Vec<usize>, CudaSlice<f32>)>,
}

impl WeightStore {
    pub fn new(ctx: &Arc<CudaContext>) -> Self {
        WeightStore { stream: ctx.default_stream(), tensors: BTreeMap::new() }
    }

    pub fn load(&mut self, specs: Vec<TensorSpec>) -> Result<usize, LoadError> {
        let mut bytes = 0;
        for spec in specs {
            let dev = self.stream.clone_htod(&spec.data)?; // EXPECT: pageable_async_copy
            self.stream.synchronize()?;
            let sum = {
                let (ptr, _guard) = dev.device_ptr(&self.stream);
                let on_device = unsafe { std::slice::from_raw_parts(ptr as *const f32, dev.len()) }; // EXPECT: host_deref_device_ptr
                fnv1a(on_device.iter().copied())
            };
            if sum != spec.checksum {
                return Err(LoadError::Corrupt(spec.name));
            }
            bytes += dev.num_bytes();
            self.tensors.insert(spec.name, (spec.shape, dev));
        }
        Ok(bytes)
    }

    pub fn get(&self, name: &str) -> Option<&CudaSlice<f32>> {
        self.tensors.get(name).map(|(_, t)| t)
    }
}
