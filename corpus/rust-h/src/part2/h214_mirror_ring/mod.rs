//! case: mirrored ring buffer of a packet capture queue: one physical allocation mapped at `base` and at `base + size`; the drain kernel stamps the record header through the primary view and then reads the record through the mirror view, and its NVRTC source has no `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

mod kernels;
mod vmm;

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};

pub type RingResult<T> = Result<T, Box<dyn std::error::Error>>;

pub struct MirrorRing {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    drain_fn: CudaFunction,
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    head: u32,
    seq: u32,
    out_host: PinnedHostSlice<u8>,
}

impl MirrorRing {
    pub fn new(ctx: Arc<CudaContext>, min_bytes: usize) -> RingResult<Self> {
        let ordinal = ctx.ordinal() as i32;
        let size = vmm::round_to_granularity(ordinal, min_bytes)?;
        let (base, handle) = unsafe {
            let mut base: CUdeviceptr = 0;
            let mut handle: CUmemGenericAllocationHandle = 0;
            let prop = vmm::device_prop(ordinal);
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            let access = vmm::rw_access(ordinal);
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
            (base, handle)
        };
        let stream = ctx.new_stream()?;
        let drain_fn = kernels::load_drain(&ctx)?;
        let out_host = unsafe { ctx.alloc_pinned_with_flags::<u8>(size, 0)? };
        Ok(Self { ctx, stream, drain_fn, base, size, handle, head: 0, seq: 0, out_host })
    }

    /// Producer side (the capture kernel, elsewhere) advanced the tail; drain `len` bytes.
    pub fn drain(&mut self, len: u32) -> RingResult<Vec<u8>> {
        let len = len.min(self.size as u32);
        let mut out = self.stream.alloc_zeros::<u8>(len as usize)?;
        let mirror = self.base + self.size as u64;
        let (head, size, seq) = (self.head, self.size as u32, self.seq);
        let cfg = LaunchConfig::for_num_elems(len);
        unsafe { self.stream.launch_builder(&self.drain_fn).arg(&self.base).arg(&mirror).arg(&head).arg(&len).arg(&size).arg(&seq).arg(&mut out).launch(cfg)? }; // EXPECT: unfenced_vmm_alias
        self.stream.memcpy_dtoh(&out, &mut self.out_host)?;
        self.stream.synchronize()?;
        self.head = (self.head + len) % size;
        self.seq = self.seq.wrapping_add(1);
        Ok(self.out_host.as_slice()?[..len as usize].to_vec())
    }
}

impl Drop for MirrorRing {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
        let _ = &self.ctx;
    }
}
