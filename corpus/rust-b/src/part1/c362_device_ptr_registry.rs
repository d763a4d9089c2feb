//! case: an allocator registry stores device pointers in a HashMap, does address arithmetic and prints addresses, but never dereferences them on the host
//! expect: none
use std::collections::HashMap;

use cuda_lint_runtime::{Context, DeviceBuffer, DevicePtr, Result};

pub struct Registry {
    buffers: HashMap<String, DeviceBuffer<u8>>,
}

impl Registry {
    pub fn new() -> Self {
        Self { buffers: HashMap::new() }
    }

    pub fn alloc(&mut self, ctx: &Context, name: &str, bytes: usize) -> Result<DevicePtr> {
        let b = ctx.alloc_zeroed::<u8>(bytes)?;
        let p = b.device_ptr();
        self.buffers.insert(name.to_owned(), b);
        Ok(p)
    }

    /// Which buffer an address falls into, for error messages.
    pub fn owner_of(&self, addr: DevicePtr) -> Option<&str> {
        self.buffers.iter().find_map(|(name, b)| {
            let start = b.device_ptr();
            let end = start.offset_bytes(b.num_bytes());
            (start <= addr && addr < end).then_some(name.as_str())
        })
    }

    pub fn dump(&self) -> String {
        let mut lines: Vec<String> = self
            .buffers
            .iter()
            .map(|(n, b)| format!("{n}: {} ({} bytes)", b.device_ptr(), b.num_bytes()))
            .collect();
        lines.sort();
        lines.join("\n")
    }
}
