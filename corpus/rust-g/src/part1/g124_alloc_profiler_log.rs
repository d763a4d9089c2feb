//! case: memory profiler of an inference engine that records every device allocation's address and size for a fragmentation report: it formats raw device addresses as integers, checks their alignment and sorts them, but never dereferences them
//! expect: none

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

#[derive(Debug, Clone)]
pub struct AllocRecord {
    pub tag: &'static str,
    pub bytes: usize,
}

fn registry() -> &'static Mutex<BTreeMap<u64, AllocRecord>> {
    static REGISTRY: OnceLock<Mutex<BTreeMap<u64, AllocRecord>>> = OnceLock::new();
    REGISTRY.get_or_init(|| Mutex::new(BTreeMap::new()))
}

pub fn tracked_alloc<T: DeviceRepr + ValidAsZeroBits>(stream: &Arc<CudaStream>, len: usize, tag: &'static str) -> Result<CudaSlice<T>> {
    let slice = stream.alloc_zeros::<T>(len)?;
    let addr = {
        let (ptr, _record) = slice.device_ptr(stream);
        ptr
    };
    if addr % 256 != 0 {
        eprintln!("profiler: {tag} at {addr:#x} is not 256-byte aligned");
    }
    registry().lock().unwrap().insert(addr, AllocRecord { tag, bytes: slice.num_bytes() });
    Ok(slice)
}

/// Gaps between consecutive allocations, in address order: a rough fragmentation picture.
pub fn fragmentation_report() -> String {
    let reg = registry().lock().unwrap();
    let mut out = String::new();
    let mut prev_end: Option<u64> = None;
    for (&addr, rec) in reg.iter() {
        let gap = prev_end.map(|end| addr.saturating_sub(end)).unwrap_or(0);
        out.push_str(&format!("{addr:#014x} {:>12} B  gap {:>10} B  {}\n", rec.bytes, gap, rec.tag));
        prev_end = Some(addr + rec.bytes as u64);
    }
    out
}

pub fn profile_kv_cache(stream: &Arc<CudaStream>, layers: usize, bytes_per_layer: usize) -> Result<(Vec<CudaSlice<u8>>, String)> {
    let caches = (0..layers)
        .map(|_| tracked_alloc::<u8>(stream, bytes_per_layer, "kv_cache"))
        .collect::<Result<Vec<_>>>()?;
    Ok((caches, fragmentation_report()))
}
