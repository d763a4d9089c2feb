//! case: SQL engine result readback over cudarc's driver sys layer: the result arena is cuMemHostAlloc'd with CU_MEMHOSTALLOC_WRITECOMBINED, filled by cuMemcpyDtoHAsync, synchronized and then parsed on the host (uncached reads); its Drop releases it with cuMemFree_v2
//! expect: write_combined_host_read=1, mismatched_free=1

use cudarc::driver::sys::{self, CUdeviceptr, CUresult, CUstream};
use std::ffi::c_void;

#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub key: u64,
    pub sum: f64,
    pub count: u64,
}

fn ok(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct ResultArena {
    host: *mut c_void,
    bytes: usize,
}

impl ResultArena {
    pub fn new(max_rows: usize) -> Result<Self, CUresult> {
        let bytes = max_rows * 24;
        let mut host: *mut c_void = std::ptr::null_mut();
        unsafe {
            ok(sys::cuMemHostAlloc(&mut host, bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED | sys::CU_MEMHOSTALLOC_PORTABLE))?;
        }
        Ok(ResultArena { host, bytes })
    }

    /// Copies `rows` packed (key u64, sum f64, count u64) records from `d_rows` and decodes them.
    pub fn fetch(&mut self, d_rows: CUdeviceptr, rows: usize, stream: CUstream) -> Result<Vec<Row>, CUresult> {
        let bytes = (rows * 24).min(self.bytes);
        unsafe {
            ok(sys::cuMemcpyDtoHAsync_v2(self.host, d_rows, bytes, stream))?;
            ok(sys::cuStreamSynchronize(stream))?;
            let words = std::slice::from_raw_parts(self.host as *const u64, bytes / 8);
            let decoded = words.chunks_exact(3).map(|w| Row { key: w[0], sum: f64::from_bits(w[1]), count: w[2] }).collect(); // EXPECT: write_combined_host_read
            Ok(decoded)
        }
    }
}

impl Drop for ResultArena {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.host as CUdeviceptr); // EXPECT: mismatched_free
        }
    }
}

/// Group-by results of one query, merged across the partitions' arenas.
pub fn merge_partitions(parts: Vec<Vec<Row>>) -> Vec<Row> {
    let mut all: Vec<Row> = parts.into_iter().flatten().collect();
    all.sort_by_key(|r| r.key);
    let mut merged: Vec<Row> = Vec::with_capacity(all.len());
    for r in all {
        match merged.last_mut() {
            Some(last) if last.key == r.key => {
                last.sum += r.sum;
                last.count += r.count;
            }
            _ => merged.push(r),
        }
    }
    merged
}
