//! case: GPU-resident embedding cache of a recommendation service; a page of rows (256 x 1024 floats, 1 MiB) arrives as a `Vec<f32>` and is uploaded with `memcpy_htod` (pageable), and the `peek` fast path reads a cached value by dereferencing the table's device pointer on the host
//! expect: pageable_async_copy=1, host_deref_device_ptr=1

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DevicePtr, DriverError};

pub const DIM: usize = 1024;
pub const PAGE_ROWS: usize = 256;

pub struct EmbeddingCache {
    stream: Arc<CudaStream>,
    table: CudaSlice<f32>,
    pages: usize,
    slot_of: HashMap<u64, usize>,
    lru: VecDeque<u64>,
}

impl EmbeddingCache {
    pub fn new(ctx: &Arc<CudaContext>, pages: usize) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        let table = stream.alloc_zeros::<f32>(pages * PAGE_ROWS * DIM)?;
        Ok(Self { stream, table, pages, slot_of: HashMap::new(), lru: VecDeque::new() })
    }

    fn evict_page(&mut self) -> usize {
        let victim = self.lru.pop_front().expect("cache has at least one page");
        let page = self.slot_of[&victim] / PAGE_ROWS;
        self.slot_of.retain(|_, slot| *slot / PAGE_ROWS != page);
        self.lru.retain(|k| self.slot_of.contains_key(k));
        page
    }

    /// Inserts one page of rows fetched from the parameter server.
    pub fn insert_page(&mut self, keys: &[u64], rows: Vec<f32>) -> Result<(), DriverError> {
        assert_eq!(rows.len(), keys.len() * DIM);
        let used_pages = self.slot_of.len().div_ceil(PAGE_ROWS);
        let page = if used_pages < self.pages { used_pages } else { self.evict_page() };
        let base = page * PAGE_ROWS * DIM;
        let mut dst = self.table.slice_mut(base..base + rows.len());
        self.stream.memcpy_htod(&rows, &mut dst)?; // EXPECT: pageable_async_copy
        for (i, &k) in keys.iter().enumerate() {
            self.slot_of.insert(k, page * PAGE_ROWS + i);
            self.lru.push_back(k);
        }
        Ok(())
    }

    pub fn table(&self) -> &CudaSlice<f32> {
        &self.table
    }

    /// Fast path used by the ranking shortcut: first component of a cached row.
    pub fn peek(&self, key: u64) -> Result<Option<f32>, DriverError> {
        let Some(&slot) = self.slot_of.get(&key) else { return Ok(None) };
        self.stream.synchronize()?;
        let (base, _guard) = self.table.device_ptr(&self.stream);
        let row = (base as *const f32).wrapping_add(slot * DIM);
        let first = unsafe { *row }; // EXPECT: host_deref_device_ptr
        Ok(Some(first))
    }
}
