//! case: bump-allocated activation arena on the CUDA runtime API (`cudaMalloc`) for a transformer forward pass; `new` stamps a magic word into the arena's first bytes through the raw pointer from the host, and `Drop` releases the arena with `cudaFreeHost`
//! expect: host_deref_device_ptr=1, mismatched_free=1

use std::ffi::c_void;

use cudarc::runtime::{result, sys};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

const ARENA_MAGIC: u32 = 0xA11C_A7ED;
const ALIGN: usize = 256;

pub struct ActivationArena {
    base: *mut c_void,
    capacity: usize,
    offset: usize,
    stream: sys::cudaStream_t,
}

impl ActivationArena {
    pub fn new(capacity: usize, stream: sys::cudaStream_t) -> Result<Self> {
        let mut base: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cudaMalloc(&mut base, capacity).result()? };
        // header word, checked when the arena is reset, to catch use of a stale arena
        unsafe { std::ptr::write(base as *mut u32, ARENA_MAGIC) }; // EXPECT: host_deref_device_ptr
        Ok(ActivationArena { base, capacity, offset: ALIGN, stream })
    }

    /// Carves `bytes` out of the arena, 256-byte aligned.
    pub fn alloc(&mut self, bytes: usize) -> Option<*mut c_void> {
        let start = self.offset.next_multiple_of(ALIGN);
        if start + bytes > self.capacity {
            return None;
        }
        self.offset = start + bytes;
        Some(unsafe { (self.base as *mut u8).add(start) as *mut c_void })
    }

    /// Starts a new forward pass: everything handed out before is dead once the stream is idle.
    pub fn reset(&mut self) -> Result<()> {
        unsafe { result::stream::synchronize(self.stream)? };
        self.offset = ALIGN;
        Ok(())
    }
}

impl Drop for ActivationArena {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFreeHost(self.base); // EXPECT: mismatched_free
        }
    }
}

pub fn forward_layers(layers: usize, tokens: usize, hidden: usize) -> Result<usize> {
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let per_layer = tokens * hidden * 4 * 3; // q, k, v
    let mut arena = ActivationArena::new(per_layer * 2 + 4 * ALIGN, stream)?;
    let mut peak = 0;
    for _ in 0..layers {
        arena.reset()?;
        for _ in 0..3 {
            let buf = arena.alloc(tokens * hidden * 4).ok_or("arena too small")?;
            unsafe { sys::cudaMemsetAsync(buf, 0, tokens * hidden * 4, stream).result()? };
        }
        peak = peak.max(arena.offset);
    }
    drop(arena);
    unsafe { result::stream::destroy(stream)? };
    Ok(peak)
}
