//! case: a pool of pinned upload buffers for a batched feature pipeline, allocated with `cuMemHostAlloc` through cudarc's `driver::result::malloc_host`; the pool's `Drop` gives them back with `result::free_sync`, which is `cuMemFree` (device memory), not `cuMemFreeHost`
//! expect: mismatched_free=1

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

pub struct StagingPool {
    buffers: Vec<(*mut c_void, usize)>,
    free: Vec<usize>,
}

impl StagingPool {
    pub fn new(count: usize, bytes: usize) -> Result<Self> {
        let mut buffers = Vec::with_capacity(count);
        for _ in 0..count {
            let p = unsafe { result::malloc_host(bytes, sys::CU_MEMHOSTALLOC_PORTABLE)? };
            buffers.push((p, bytes));
        }
        Ok(StagingPool { free: (0..count).collect(), buffers })
    }

    pub fn take(&mut self) -> Option<usize> {
        self.free.pop()
    }

    pub fn give_back(&mut self, idx: usize) {
        self.free.push(idx);
    }

    pub fn slice_mut(&mut self, idx: usize) -> &mut [f32] {
        let (p, bytes) = self.buffers[idx];
        unsafe { std::slice::from_raw_parts_mut(p as *mut f32, bytes / 4) }
    }
}

impl Drop for StagingPool {
    fn drop(&mut self) {
        for (p, _) in self.buffers.drain(..) {
            let _ = unsafe { result::free_sync(p as sys::CUdeviceptr) }; // EXPECT: mismatched_free
        }
    }
}

pub fn upload_features(batches: &[Vec<f32>], feature_bytes: usize) -> Result<Vec<sys::CUdeviceptr>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let mut pool = StagingPool::new(4, feature_bytes)?;
    let mut device = Vec::with_capacity(batches.len());
    let mut in_flight = Vec::new();

    for batch in batches {
        let idx = match pool.take() {
            Some(i) => i,
            None => {
                // every staging buffer is in flight: wait for all of them
                unsafe { result::stream::synchronize(stream)? };
                in_flight.drain(..).for_each(|i| pool.give_back(i));
                pool.take().expect("buffers were just returned")
            }
        };
        let stage = pool.slice_mut(idx);
        let n = batch.len().min(stage.len());
        stage[..n].copy_from_slice(&batch[..n]);
        let dst = unsafe { result::malloc_sync(n * 4)? };
        unsafe { result::memcpy_htod_async(dst, &stage[..n], stream)? };
        in_flight.push(idx);
        device.push(dst);
    }
    unsafe { result::stream::synchronize(stream)? };
    drop(pool);
    unsafe { result::stream::destroy(stream)? };
    Ok(device)
}
