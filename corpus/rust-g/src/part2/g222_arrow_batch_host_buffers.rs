//! case: columnar engine upload path where a batch's host buffer is either engine-allocated pinned memory (cuMemAllocHost) or a caller's Vec page-locked in place (cuMemHostRegister); the enum's Drop waits for the upload stream and releases each variant with its own function (cuMemFreeHost / cuMemHostUnregister)
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

pub enum HostColumn {
    Pinned { ptr: *mut u8, len: usize, stream: CUstream },
    Registered { data: Vec<u8>, stream: CUstream },
}

impl HostColumn {
    pub fn pinned(len: usize, stream: CUstream) -> Result<Self> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut p, len).result()? };
        Ok(HostColumn::Pinned { ptr: p.cast(), len, stream })
    }

    pub fn adopt(mut data: Vec<u8>, stream: CUstream) -> Result<Self> {
        unsafe { sys::cuMemHostRegister_v2(data.as_mut_ptr().cast(), data.len(), 0).result()? };
        Ok(HostColumn::Registered { data, stream })
    }

    pub fn bytes(&self) -> &[u8] {
        match self {
            HostColumn::Pinned { ptr, len, .. } => unsafe { std::slice::from_raw_parts(*ptr, *len) },
            HostColumn::Registered { data, .. } => data,
        }
    }

    pub fn bytes_mut(&mut self) -> &mut [u8] {
        match self {
            HostColumn::Pinned { ptr, len, .. } => unsafe { std::slice::from_raw_parts_mut(*ptr, *len) },
            HostColumn::Registered { data, .. } => data,
        }
    }

    fn stream(&self) -> CUstream {
        match self {
            HostColumn::Pinned { stream, .. } | HostColumn::Registered { stream, .. } => *stream,
        }
    }

    /// Enqueues the upload of the whole column to `dst` on the column's stream.
    pub fn upload(&self, dst: CUdeviceptr) -> Result<()> {
        let b = self.bytes();
        unsafe { sys::cuMemcpyHtoDAsync_v2(dst, b.as_ptr().cast(), b.len(), self.stream()).result()? };
        Ok(())
    }
}

impl Drop for HostColumn {
    fn drop(&mut self) {
        unsafe {
            // An upload may still be reading the buffer.
            let _ = sys::cuStreamSynchronize(self.stream());
            match self {
                HostColumn::Pinned { ptr, .. } => {
                    let _ = sys::cuMemFreeHost((*ptr).cast());
                }
                HostColumn::Registered { data, .. } => {
                    let _ = sys::cuMemHostUnregister(data.as_mut_ptr().cast());
                }
            }
        }
    }
}

pub struct RecordBatch {
    pub columns: Vec<HostColumn>,
}

/// Uploads every column of every batch into one device arena; returns the offsets.
pub fn stage_batches(batches: Vec<RecordBatch>, arena: CUdeviceptr, arena_len: usize) -> Result<Vec<usize>> {
    let mut offsets = Vec::new();
    let mut cursor = 0usize;
    for batch in &batches {
        for col in &batch.columns {
            let len = col.bytes().len();
            if cursor + len > arena_len {
                return Err("arena full".into());
            }
            col.upload(arena + cursor as u64)?;
            offsets.push(cursor);
            cursor = (cursor + len).next_multiple_of(256);
        }
    }
    drop(batches); // each column waits for its stream before releasing its memory
    Ok(offsets)
}

pub fn make_batch(stream: CUstream, ids: Vec<u8>, prices_len: usize) -> Result<RecordBatch> {
    let mut prices = HostColumn::pinned(prices_len, stream)?;
    for (i, b) in prices.bytes_mut().iter_mut().enumerate() {
        *b = (i % 251) as u8;
    }
    Ok(RecordBatch { columns: vec![HostColumn::adopt(ids, stream)?, prices] })
}
