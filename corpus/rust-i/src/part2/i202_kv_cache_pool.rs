//! case: paged KV-cache pool for an inference server (cudarc): evicted pages go out through a non-write-combined pinned staging buffer and are synchronized before the host copies them, but swapping a page back in copies straight from the spilled Vec with memcpy_htod (pageable)
//! expect: pageable_async_copy=1

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};
use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct PageId {
    pub seq: u64,
    pub block: u32,
}

pub struct KvCachePool {
    stream: Arc<CudaStream>,
    page_elems: usize,
    resident: HashMap<PageId, CudaSlice<f32>>,
    lru: VecDeque<PageId>,
    spilled: HashMap<PageId, Vec<f32>>,
    free_pages: Vec<CudaSlice<f32>>,
    staging: PinnedHostSlice<f32>,
    capacity: usize,
}

impl KvCachePool {
    pub fn new(ctx: &Arc<CudaContext>, page_elems: usize, capacity: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let mut free_pages = Vec::with_capacity(capacity);
        for _ in 0..capacity {
            free_pages.push(stream.alloc_zeros::<f32>(page_elems)?);
        }
        // Plain page-locked memory: the host reads it back, so no write-combining.
        let staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(page_elems, 0)? };
        Ok(KvCachePool {
            stream,
            page_elems,
            resident: HashMap::new(),
            lru: VecDeque::new(),
            spilled: HashMap::new(),
            free_pages,
            staging,
            capacity,
        })
    }

    fn touch(&mut self, id: PageId) {
        if let Some(pos) = self.lru.iter().position(|p| *p == id) {
            self.lru.remove(pos);
        }
        self.lru.push_back(id);
    }

    /// Moves the least recently used page to host memory and returns its device slot.
    fn evict_one(&mut self) -> Result<CudaSlice<f32>, DriverError> {
        let victim = self.lru.pop_front().expect("pool is full, so something is resident");
        let page = self.resident.remove(&victim).expect("lru and map agree");
        self.stream.memcpy_dtoh(&page, &mut self.staging)?;
        self.stream.synchronize()?;
        let spilled = self.staging.as_slice()?.to_vec();
        self.spilled.insert(victim, spilled);
        Ok(page)
    }

    fn slot(&mut self) -> Result<CudaSlice<f32>, DriverError> {
        match self.free_pages.pop() {
            Some(p) => Ok(p),
            None => self.evict_one(),
        }
    }

    /// Returns the device page for `id`, swapping it in from host memory if it was evicted.
    pub fn page(&mut self, id: PageId) -> Result<&CudaSlice<f32>, DriverError> {
        if !self.resident.contains_key(&id) {
            let mut dev = self.slot()?;
            if let Some(host) = self.spilled.remove(&id) {
                self.stream.memcpy_htod(&host, &mut dev)?; // EXPECT: pageable_async_copy
            } else {
                self.stream.memset_zeros(&mut dev)?;
            }
            self.resident.insert(id, dev);
        }
        self.touch(id);
        Ok(&self.resident[&id])
    }

    pub fn release_sequence(&mut self, seq: u64) {
        let ids: Vec<PageId> = self.resident.keys().filter(|p| p.seq == seq).copied().collect();
        for id in ids {
            if let Some(page) = self.resident.remove(&id) {
                self.free_pages.push(page);
            }
            self.lru.retain(|p| *p != id);
        }
        self.spilled.retain(|p, _| p.seq != seq);
    }

    pub fn resident_pages(&self) -> usize {
        self.resident.len()
    }

    pub fn page_bytes(&self) -> usize {
        self.page_elems * std::mem::size_of::<f32>()
    }
}
