use cudarc::driver::sys;

use super::access::{grant_rw, pinned_prop};
use super::Result;

struct Chunk {
    va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct PagePool {
    dev: sys::CUdevice,
    stream: sys::CUstream,
    base: sys::CUdeviceptr,
    reserved: usize,
    mapped: usize,
    page_bytes: usize,
    chunks: Vec<Chunk>,
}

impl PagePool {
    pub fn reserve(dev: sys::CUdevice, stream: sys::CUstream, page_bytes: usize, max_pages: usize) -> Result<Self> {
        let reserved = page_bytes * max_pages;
        let mut base = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()? };
        Ok(PagePool { dev, stream, base, reserved, mapped: 0, page_bytes, chunks: Vec::new() })
    }

    pub fn mapped_pages(&self) -> usize {
        self.mapped / self.page_bytes
    }

    pub fn reserved_pages(&self) -> usize {
        self.reserved / self.page_bytes
    }

    pub fn page_ptr(&self, page: usize) -> sys::CUdeviceptr {
        self.base + (page * self.page_bytes) as u64
    }

    /// Maps `pages` more pages at the end of the mapped part of the reservation.
    pub fn grow(&mut self, pages: usize) -> Result<()> {
        let bytes = pages * self.page_bytes;
        if pages == 0 || self.mapped + bytes > self.reserved {
            return Err("KV page pool exhausted".into());
        }
        let prop = pinned_prop(self.dev);
        let mut handle = 0;
        unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()? };
        let va = self.base + self.mapped as u64;
        unsafe {
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            // fresh pages must read as empty KV slots
            sys::cuMemsetD32Async(va, 0, bytes / 4, self.stream).result()?; // EXPECT: vmm_lifecycle
        }
        grant_rw(self.dev, va, bytes)?;
        self.chunks.push(Chunk { va, bytes, handle });
        self.mapped += bytes;
        Ok(())
    }
}

impl Drop for PagePool {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for c in self.chunks.drain(..).rev() {
                let _ = sys::cuMemUnmap(c.va, c.bytes);
                let _ = sys::cuMemRelease(c.handle);
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}
