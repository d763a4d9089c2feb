//! case: storage-engine page cache allocates its frames with `cudaMallocHost` (raw runtime FFI), but the eviction path treats every frame as registered user memory and calls `cudaHostUnregister` on it before reuse
//! expect: mismatched_free=1

use std::collections::HashMap;
use std::ffi::c_void;

type CudaStreamT = *mut c_void;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFreeHost(ptr: *mut c_void) -> i32;
    fn cudaHostUnregister(ptr: *mut c_void) -> i32;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: i32, stream: CudaStreamT) -> i32;
    fn cudaStreamSynchronize(stream: CudaStreamT) -> i32;
}

const PAGE_SIZE: usize = 256 * 1024;
const CUDA_MEMCPY_HOST_TO_DEVICE: i32 = 1;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PageId {
    pub file: u32,
    pub page: u64,
}

struct Frame {
    host: *mut c_void,
    page: Option<PageId>,
    pins: u32,
    last_use: u64,
}

pub struct PageCache {
    frames: Vec<Frame>,
    index: HashMap<PageId, usize>,
    clock: u64,
    stream: CudaStreamT,
}

impl PageCache {
    pub fn with_frames(n: usize, stream: CudaStreamT) -> Result<Self, i32> {
        let mut frames = Vec::with_capacity(n);
        for _ in 0..n {
            let mut host = std::ptr::null_mut();
            let rc = unsafe { cudaMallocHost(&mut host, PAGE_SIZE) };
            if rc != 0 {
                return Err(rc);
            }
            frames.push(Frame { host, page: None, pins: 0, last_use: 0 });
        }
        Ok(Self { frames, index: HashMap::new(), clock: 0, stream })
    }

    fn victim(&self) -> Option<usize> {
        self.frames
            .iter()
            .enumerate()
            .filter(|(_, f)| f.pins == 0)
            .min_by_key(|(_, f)| f.last_use)
            .map(|(i, _)| i)
    }

    fn evict(&mut self, slot: usize) {
        let frame = &mut self.frames[slot];
        if let Some(old) = frame.page.take() {
            self.index.remove(&old);
        }
        // "drop the DMA mapping" before the frame is reused for another file
        unsafe { cudaHostUnregister(frame.host) }; // EXPECT: mismatched_free
    }

    /// Loads `page` into a pinned frame with `read_page` and pushes it to `dev`.
    pub fn load_to_device(
        &mut self,
        page: PageId,
        dev: *mut c_void,
        read_page: impl FnOnce(&mut [u8]),
    ) -> Result<(), i32> {
        self.clock += 1;
        let slot = match self.index.get(&page) {
            Some(&s) => s,
            None => {
                let s = self.victim().ok_or(-1)?;
                self.evict(s);
                let bytes = unsafe { std::slice::from_raw_parts_mut(self.frames[s].host as *mut u8, PAGE_SIZE) };
                read_page(bytes);
                self.frames[s].page = Some(page);
                self.index.insert(page, s);
                s
            }
        };
        self.frames[slot].last_use = self.clock;
        let rc = unsafe { cudaMemcpyAsync(dev, self.frames[slot].host, PAGE_SIZE, CUDA_MEMCPY_HOST_TO_DEVICE, self.stream) };
        if rc != 0 {
            return Err(rc);
        }
        let rc = unsafe { cudaStreamSynchronize(self.stream) };
        if rc != 0 { Err(rc) } else { Ok(()) }
    }
}

impl Drop for PageCache {
    fn drop(&mut self) {
        unsafe { cudaStreamSynchronize(self.stream) };
        for f in self.frames.drain(..) {
            unsafe { cudaFreeHost(f.host) };
        }
    }
}
