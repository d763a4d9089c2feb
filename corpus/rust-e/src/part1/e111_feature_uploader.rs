//! case: feature-store uploader over cudarc's runtime API layer; rows are packed into a cudaMallocHost staging buffer and copied into a device embedding table, but the uploader's Drop releases the staging buffer with cudaFree instead of cudaFreeHost
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr;

use cudarc::runtime::result::{self, RuntimeError};
use cudarc::runtime::sys;

pub struct FeatureRow {
    pub entity: u64,
    pub values: Vec<f32>,
}

pub struct FeatureUploader {
    stream: sys::cudaStream_t,
    staging: *mut f32,
    staging_rows: usize,
    table: *mut c_void,
    table_rows: usize,
    dim: usize,
}

impl FeatureUploader {
    pub fn new(table_rows: usize, dim: usize, staging_rows: usize) -> Result<Self, RuntimeError> {
        result::device::set(0)?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let table = unsafe { result::malloc_sync(table_rows * dim * 4)? };
        let mut staging: *mut c_void = ptr::null_mut();
        unsafe { sys::cudaMallocHost(&mut staging, staging_rows * dim * 4).result()? };
        Ok(FeatureUploader { stream, staging: staging as *mut f32, staging_rows, table, table_rows, dim })
    }

    /// Writes `rows` into consecutive table rows starting at `first`; returns rows written.
    pub fn upload(&mut self, first: usize, rows: &[FeatureRow]) -> Result<usize, RuntimeError> {
        let count = rows.len().min(self.staging_rows).min(self.table_rows.saturating_sub(first));
        if count == 0 {
            return Ok(0);
        }
        let staged = unsafe { std::slice::from_raw_parts_mut(self.staging, count * self.dim) };
        for (dst, row) in staged.chunks_exact_mut(self.dim).zip(rows) {
            let n = row.values.len().min(self.dim);
            dst[..n].copy_from_slice(&row.values[..n]);
            dst[n..].fill(0.0);
        }
        unsafe {
            let dst = (self.table as *mut f32).add(first * self.dim) as *mut c_void;
            result::memcpy_htod_async(dst, staged, self.stream)?;
            result::stream::synchronize(self.stream)?;
        }
        Ok(count)
    }
}

impl Drop for FeatureUploader {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = result::free_sync(self.table);
            let _ = result::free_sync(self.staging as *mut c_void); // EXPECT: mismatched_free
            let _ = result::stream::destroy(self.stream);
        }
    }
}
