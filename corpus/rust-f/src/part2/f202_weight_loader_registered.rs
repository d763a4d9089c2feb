//! case: inference server loads a checkpoint into a Vec, page-locks it in place with cuMemHostRegister and streams each layer to the device; a guard synchronizes the stream before unregistering (pinned copies, no stale reuse, matched unregister)
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::c_void;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub struct LayerSpec {
    pub name: String,
    pub offset: usize,
    pub elems: usize,
}

/// Keeps a host range page-locked for as long as it lives. Dropping it waits for the stream
/// that may still be reading the range before unpinning it.
struct PinnedRegion {
    ptr: *mut c_void,
    stream: sys::CUstream,
}

impl PinnedRegion {
    fn register(buf: &mut [f32], stream: sys::CUstream) -> Res<Self> {
        let ptr = buf.as_mut_ptr().cast::<c_void>();
        let bytes = std::mem::size_of_val(buf);
        unsafe { sys::cuMemHostRegister_v2(ptr, bytes, sys::CU_MEMHOSTREGISTER_PORTABLE) }.result()?;
        Ok(PinnedRegion { ptr, stream })
    }
}

impl Drop for PinnedRegion {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemHostUnregister(self.ptr);
        }
    }
}

pub struct DeviceWeights {
    pub base: sys::CUdeviceptr,
    pub layers: Vec<(String, sys::CUdeviceptr, usize)>,
}

impl Drop for DeviceWeights {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.base);
        }
    }
}

pub struct WeightLoader {
    stream: sys::CUstream,
}

impl WeightLoader {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let dev = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        Ok(WeightLoader { stream })
    }

    pub fn load(&self, checkpoint: &mut Vec<f32>, layers: &[LayerSpec]) -> Res<DeviceWeights> {
        let total = checkpoint.len() * std::mem::size_of::<f32>();
        let base = unsafe { drv::malloc_sync(total) }?;
        let pinned = PinnedRegion::register(checkpoint.as_mut_slice(), self.stream)?;

        let mut placed = Vec::with_capacity(layers.len());
        for layer in layers {
            let byte_off = layer.offset * std::mem::size_of::<f32>();
            let bytes = layer.elems * std::mem::size_of::<f32>();
            let src = unsafe { (pinned.ptr as *const u8).add(byte_off) };
            let dst = base + byte_off as u64;
            unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, self.stream) }.result()?;
            placed.push((layer.name.clone(), dst, layer.elems));
        }
        unsafe { drv::stream::synchronize(self.stream) }?;
        drop(pinned);

        // The host copy is free again: reuse it as scratch for the next shard.
        checkpoint.iter_mut().for_each(|w| *w = 0.0);
        Ok(DeviceWeights { base, layers: placed })
    }
}

impl Drop for WeightLoader {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
