//! case: an async asset-upload task (cudarc's runtime::sys) stages each chunk in write-combined pinned memory from cudaHostAlloc (the host only writes it), enqueues cudaMemcpyAsync, and before rewriting the staging buffer awaits a future that polls cudaStreamQuery until the copy is done
//! expect: none

use std::ffi::c_void;
use std::future::Future;
use std::pin::Pin;
use std::ptr::null_mut;
use std::task::{Context, Poll};

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaError_t, cudaMemcpyKind, cudaStream_t};

/// Resolves once every operation enqueued on `stream` has completed.
struct StreamIdle {
    stream: cudaStream_t,
}

impl Future for StreamIdle {
    type Output = Result<(), RuntimeError>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match unsafe { sys::cudaStreamQuery(self.stream) } {
            cudaError_t::cudaSuccess => Poll::Ready(Ok(())),
            cudaError_t::cudaErrorNotReady => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            e => Poll::Ready(e.result()),
        }
    }
}

pub struct AssetUploader {
    stream: cudaStream_t,
    staging: *mut u8, // cudaHostAllocWriteCombined: written by the host, read only by DMA
    staging_len: usize,
    in_flight: bool,
}

unsafe impl Send for AssetUploader {}

impl AssetUploader {
    pub fn new(stream: cudaStream_t, staging_len: usize) -> Result<Self, RuntimeError> {
        let mut p: *mut c_void = null_mut();
        unsafe { sys::cudaHostAlloc(&mut p, staging_len, sys::cudaHostAllocWriteCombined).result()? };
        Ok(Self { stream, staging: p.cast(), staging_len, in_flight: false })
    }

    async fn wait_idle(&mut self) -> Result<(), RuntimeError> {
        if self.in_flight {
            StreamIdle { stream: self.stream }.await?;
            self.in_flight = false;
        }
        Ok(())
    }

    /// Uploads `asset` to `dst` (device memory of at least `asset.len()` bytes).
    pub async fn upload(&mut self, asset: &[u8], dst: *mut u8) -> Result<usize, RuntimeError> {
        for (i, chunk) in asset.chunks(self.staging_len).enumerate() {
            self.wait_idle().await?;
            let staging = unsafe { std::slice::from_raw_parts_mut(self.staging, chunk.len()) };
            staging.copy_from_slice(chunk);
            unsafe {
                sys::cudaMemcpyAsync(dst.add(i * self.staging_len).cast(), self.staging.cast(), chunk.len(), cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream).result()?;
            }
            self.in_flight = true;
        }
        self.wait_idle().await?;
        Ok(asset.len())
    }
}

impl Drop for AssetUploader {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFreeHost(self.staging.cast());
        }
    }
}
