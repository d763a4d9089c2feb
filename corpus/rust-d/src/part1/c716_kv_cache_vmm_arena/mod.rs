//! case: an LLM KV-cache arena on the VMM driver API maps a physical block per sequence page, grants access in the same helper that maps, zeroes pages only after that, and tears down in the documented order in Drop (synchronize, unmap, release, then free the reservation)
//! expect: none

mod vmm;

use cudarc::driver::result::DriverError;
use cudarc::driver::sys::{self, CUdeviceptr, CUstream};

use vmm::{MappedPage, Reservation};

pub struct KvCacheArena {
    stream: CUstream,
    range: Reservation,
    pages: Vec<Option<MappedPage>>,
    page_bytes: usize,
}

impl KvCacheArena {
    pub fn new(device: i32, stream: CUstream, max_pages: usize) -> Result<Self, DriverError> {
        let page_bytes = vmm::granularity(device)? * 8;
        let range = Reservation::reserve(device, page_bytes * max_pages)?;
        Ok(Self { stream, range, pages: (0..max_pages).map(|_| None).collect(), page_bytes })
    }

    /// Device address of page `slot`, mapping and zeroing it on first use.
    pub fn page(&mut self, slot: usize) -> Result<CUdeviceptr, DriverError> {
        let at = self.range.base + (slot * self.page_bytes) as u64;
        if self.pages[slot].is_none() {
            let page = MappedPage::map_with_access(&self.range, at, self.page_bytes)?;
            self.pages[slot] = Some(page);
            unsafe { sys::cuMemsetD32Async(at, 0, self.page_bytes / 4, self.stream).result()? };
        }
        Ok(at)
    }

    /// Evicts a finished sequence's page: wait for the attention kernels that read it, then unmap.
    pub fn evict(&mut self, slot: usize) -> Result<(), DriverError> {
        if let Some(page) = self.pages[slot].take() {
            unsafe { sys::cuStreamSynchronize(self.stream).result()? };
            page.unmap_and_release()?;
        }
        Ok(())
    }

    pub fn resident_pages(&self) -> usize {
        self.pages.iter().filter(|p| p.is_some()).count()
    }
}

impl Drop for KvCacheArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
        }
        for page in self.pages.iter_mut().filter_map(Option::take) {
            let _ = page.unmap_and_release();
        }
        // `self.range` drops after this body: cuMemAddressFree once nothing is mapped.
    }
}
