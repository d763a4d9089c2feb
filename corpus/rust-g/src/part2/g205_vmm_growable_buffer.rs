//! case: growable device buffer on the VMM API (one reservation, a physical chunk mapped per growth step); grow() maps the new chunk and zero-fills it with cuMemsetD32Async before calling cuMemSetAccess, so the memset targets a mapping the device has no access to yet
//! expect: vmm_lifecycle=1

use std::error::Error;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

fn device_prop(device: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        win32HandleMetaData: null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    }
}

fn rw_access(device: i32) -> sys::CUmemAccessDesc {
    sys::CUmemAccessDesc {
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device },
        flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
    }
}

/// A device vector of u32 whose address never changes while it grows.
pub struct GrowableBuffer {
    device: i32,
    stream: sys::CUstream,
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    granularity: usize,
    chunks: Vec<(CUmemGenericAllocationHandle, usize)>,
}

impl GrowableBuffer {
    pub fn with_reservation(device: i32, max_bytes: usize, stream: sys::CUstream) -> Result<Self> {
        let prop = device_prop(device);
        let mut granularity = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(
                &mut granularity,
                &prop,
                sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED,
            )
            .result()?;
        }
        let reserved = max_bytes.div_ceil(granularity) * granularity;
        let mut base: CUdeviceptr = 0;
        unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0).result()? };
        Ok(Self { device, stream, base, reserved, mapped: 0, granularity, chunks: Vec::new() })
    }

    pub fn device_ptr(&self) -> CUdeviceptr {
        self.base
    }

    pub fn capacity_bytes(&self) -> usize {
        self.mapped
    }

    /// Makes at least `bytes` bytes usable; new memory reads as zero.
    pub fn grow(&mut self, bytes: usize) -> Result<()> {
        if bytes <= self.mapped {
            return Ok(());
        }
        let new_total = bytes.div_ceil(self.granularity) * self.granularity;
        if new_total > self.reserved {
            return Err(format!("reservation of {} bytes exhausted", self.reserved).into());
        }
        let chunk = new_total - self.mapped;
        let prop = device_prop(self.device);
        let mut handle: CUmemGenericAllocationHandle = 0;
        let tail = self.base + self.mapped as u64;
        unsafe {
            sys::cuMemCreate(&mut handle, chunk, &prop, 0).result()?;
            if let Err(e) = sys::cuMemMap(tail, chunk, 0, handle, 0).result() {
                let _ = sys::cuMemRelease(handle);
                return Err(e.into());
            }
            sys::cuMemsetD32Async(tail, 0, chunk / 4, self.stream).result()?; // EXPECT: vmm_lifecycle
            let access = rw_access(self.device);
            sys::cuMemSetAccess(tail, chunk, &access, 1).result()?;
        }
        self.chunks.push((handle, chunk));
        self.mapped = new_total;
        Ok(())
    }
}

impl Drop for GrowableBuffer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let mut off = 0u64;
            for (handle, size) in self.chunks.drain(..) {
                let _ = sys::cuMemUnmap(self.base + off, size);
                let _ = sys::cuMemRelease(handle);
                off += size as u64;
            }
            let _ = sys::cuMemAddressFree(self.base, self.reserved);
        }
    }
}

/// Appends batches of ids produced on the host; the buffer grows as needed.
pub fn collect_ids(batches: &[Vec<u32>]) -> Result<usize> {
    let mut dev = 0;
    let mut ctx = null_mut();
    let mut stream = null_mut();
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
    }
    let mut buf = GrowableBuffer::with_reservation(dev, 1 << 34, stream)?;
    let mut staging: *mut std::ffi::c_void = null_mut();
    let max_batch = batches.iter().map(Vec::len).max().unwrap_or(0).max(1);
    unsafe { sys::cuMemAllocHost_v2(&mut staging, max_batch * 4).result()? };
    let mut len = 0usize;
    for batch in batches {
        buf.grow((len + batch.len()) * 4)?;
        unsafe {
            // The previous upload must have drained the staging buffer before it is refilled.
            sys::cuStreamSynchronize(stream).result()?;
            std::ptr::copy_nonoverlapping(batch.as_ptr(), staging.cast::<u32>(), batch.len());
            sys::cuMemcpyHtoDAsync_v2(buf.device_ptr() + (len * 4) as u64, staging, batch.len() * 4, stream).result()?;
        }
        len += batch.len();
    }
    unsafe {
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemFreeHost(staging).result()?;
    }
    drop(buf);
    unsafe { sys::cuStreamDestroy_v2(stream).result()? };
    Ok(len)
}
