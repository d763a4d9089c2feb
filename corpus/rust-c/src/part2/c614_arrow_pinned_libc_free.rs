//! case: a columnar-batch loader allocates each column in pinned memory with `cudaHostAlloc`, exports it with an Arrow-style release callback, and that callback frees the column with `libc::free` like every other C-heap buffer
//! expect: mismatched_free=1

use std::ffi::c_void;
use std::ptr::{null_mut, NonNull};

use cudarc::runtime::result::{self, RuntimeError};
use cudarc::runtime::sys;

/// A C-ABI buffer handed to other libraries: they call `release` when done.
#[repr(C)]
pub struct ExportedBuffer {
    pub data: *const u8,
    pub len: usize,
    pub release: Option<unsafe extern "C" fn(*mut ExportedBuffer)>,
    pub private_data: *mut c_void,
}

unsafe extern "C" fn release_column(buf: *mut ExportedBuffer) {
    if buf.is_null() {
        return;
    }
    let b = unsafe { &mut *buf };
    if !b.private_data.is_null() {
        unsafe { libc::free(b.private_data) }; // EXPECT: mismatched_free
    }
    b.private_data = null_mut();
    b.data = std::ptr::null();
    b.release = None;
}

/// One column in page-locked memory, ready for async upload.
pub struct PinnedColumn {
    ptr: NonNull<u8>,
    len: usize,
}

impl PinnedColumn {
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, RuntimeError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cudaHostAlloc(&mut p, bytes.len().max(1), sys::cudaHostAllocPortable).result()? };
        let ptr = NonNull::new(p as *mut u8).expect("cudaHostAlloc returned null");
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), ptr.as_ptr(), bytes.len()) };
        Ok(Self { ptr, len: bytes.len() })
    }

    /// Uploads the column on `stream`; the caller synchronizes before exporting it.
    pub fn upload(&self, dst: *mut c_void, stream: sys::cudaStream_t) -> Result<(), RuntimeError> {
        unsafe {
            sys::cudaMemcpyAsync(dst, self.ptr.as_ptr() as *const c_void, self.len, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream)
                .result()
        }
    }

    /// Hands ownership to the consumer, which calls `release` when it is done.
    pub fn export(self) -> ExportedBuffer {
        let me = std::mem::ManuallyDrop::new(self);
        ExportedBuffer {
            data: me.ptr.as_ptr(),
            len: me.len,
            release: Some(release_column),
            private_data: me.ptr.as_ptr() as *mut c_void,
        }
    }
}

/// Device copies for the kernels, host copies exported to the CPU-side consumers.
pub struct LoadedBatch {
    pub device: Vec<*mut c_void>,
    pub host: Vec<ExportedBuffer>,
}

pub fn load_and_export(columns: &[Vec<u8>], stream: sys::cudaStream_t) -> Result<LoadedBatch, RuntimeError> {
    let mut batch = LoadedBatch { device: Vec::new(), host: Vec::new() };
    let mut pinned = Vec::with_capacity(columns.len());
    for col in columns {
        let p = PinnedColumn::from_bytes(col)?;
        let dev = unsafe { result::malloc_sync(col.len().max(1))? };
        p.upload(dev, stream)?;
        batch.device.push(dev);
        pinned.push(p);
    }
    unsafe { result::stream::synchronize(stream)? };
    batch.host = pinned.into_iter().map(PinnedColumn::export).collect();
    Ok(batch)
}

pub fn drop_all(mut bufs: Vec<ExportedBuffer>) {
    for b in bufs.iter_mut() {
        if let Some(release) = b.release {
            unsafe { release(b) };
        }
    }
}
