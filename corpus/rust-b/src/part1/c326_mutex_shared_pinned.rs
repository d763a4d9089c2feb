//! case: an `Arc<Mutex<PinnedBuffer>>` shared by a GPU worker thread and a UI thread; the worker synchronizes before releasing the lock
//! expect: none
use std::sync::{Arc, Mutex};
use std::thread;

use cuda_lint_runtime::{Context, DeviceBuffer, PinnedBuffer, Result, Stream};

pub struct SharedPreview {
    pixels: Arc<Mutex<PinnedBuffer<u32>>>,
}

impl SharedPreview {
    pub fn new(ctx: &Context, n: usize) -> Result<Self> {
        Ok(Self { pixels: Arc::new(Mutex::new(ctx.alloc_pinned(n)?)) })
    }

    pub fn spawn_worker(&self, stream: Arc<Stream>, frames: Vec<DeviceBuffer<u32>>) -> thread::JoinHandle<Result<()>> {
        let pixels = Arc::clone(&self.pixels);
        thread::spawn(move || {
            for f in &frames {
                let mut guard = pixels.lock().expect("poisoned");
                // SAFETY: the copy completes before the guard is released.
                unsafe { stream.copy_dtoh_async(&mut guard, f)? };
                stream.synchronize()?;
            }
            Ok(())
        })
    }

    pub fn ui_average(&self) -> u64 {
        let guard = self.pixels.lock().expect("poisoned");
        guard.iter().map(|&p| (p & 0xff) as u64).sum::<u64>() / guard.len().max(1) as u64
    }
}
