//! case: near-miss of a pageable async copy: a model loader copies each weight tensor from the `Vec` it parsed with the blocking cudaMemcpy (not an async copy), then waits on the whole device once before the first kernel runs on a non-blocking stream
//! expect: none

use std::collections::BTreeMap;
use std::ffi::c_void;

use cudarc::runtime::result::{self as rt, RuntimeError};
use cudarc::runtime::sys as rts;

pub struct DeviceWeights {
    tensors: BTreeMap<String, (*mut c_void, usize)>,
}

impl DeviceWeights {
    /// `parsed` maps tensor names to their f32 data as read from the checkpoint file.
    pub fn load(parsed: BTreeMap<String, Vec<f32>>) -> Result<Self, RuntimeError> {
        let mut tensors = BTreeMap::new();
        for (name, data) in parsed {
            let ptr = unsafe { rt::malloc_sync(data.len() * 4)? };
            unsafe { rt::memcpy_htod_sync(ptr, &data)? };
            tensors.insert(name, (ptr, data.len()));
            // `data` is dropped here; the blocking copy has staged it already
        }
        // a pageable blocking copy may still be in flight to the device: wait once for all of them
        unsafe { rts::cudaDeviceSynchronize().result()? };
        Ok(Self { tensors })
    }

    pub fn get(&self, name: &str) -> Option<(*const c_void, usize)> {
        self.tensors.get(name).map(|&(p, n)| (p as *const c_void, n))
    }

    pub fn total_params(&self) -> usize {
        self.tensors.values().map(|&(_, n)| n).sum()
    }
}

impl Drop for DeviceWeights {
    fn drop(&mut self) {
        for (_, (ptr, _)) in std::mem::take(&mut self.tensors) {
            let _ = unsafe { rt::free_sync(ptr) };
        }
    }
}
