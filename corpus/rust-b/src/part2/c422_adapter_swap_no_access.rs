//! case: a LoRA adapter slot at a fixed address; swap() unmaps the old backing, maps a new one and uploads into it without granting access again
//! expect: vmm_lifecycle=1
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaStream, DriverError, PinnedHostSlice};

pub struct AdapterSlot {
    dev: i32,
    stream: Arc<CudaStream>,
    va: sys::CUdeviceptr,
    bytes: usize,
    backing: Option<sys::CUmemGenericAllocationHandle>,
    staging: PinnedHostSlice<u8>,
}

impl AdapterSlot {
    fn prop(&self) -> sys::CUmemAllocationProp {
        sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: self.dev },
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        }
    }

    pub fn new(ctx: &Arc<CudaContext>, bytes: usize) -> Result<Self, DriverError> {
        let mut va = 0;
        unsafe { sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()? };
        let staging = unsafe { ctx.alloc_pinned_with_flags::<u8>(bytes, 0)? };
        Ok(Self { dev: ctx.cu_device(), stream: ctx.new_stream()?, va, bytes, backing: None, staging })
    }

    fn upload(&mut self, weights: &[u8]) -> Result<(), DriverError> {
        let n = weights.len().min(self.bytes);
        self.staging.as_mut_slice()?[..n].copy_from_slice(&weights[..n]);
        let src = self.staging.as_ptr()?;
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.va, src.cast(), n, self.stream.cu_stream()).result()?; } // EXPECT: vmm_lifecycle
        self.stream.synchronize()
    }

    /// First adapter: map and grant access.
    pub fn load_initial(&mut self, weights: &[u8]) -> Result<(), DriverError> {
        let prop = self.prop();
        let desc = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut h = 0;
        unsafe {
            sys::cuMemCreate(&mut h, self.bytes, &prop, 0).result()?;
            sys::cuMemMap(self.va, self.bytes, 0, h, 0).result()?;
            sys::cuMemSetAccess(self.va, self.bytes, &desc, 1).result()?;
        }
        self.backing = Some(h);
        self.upload(weights)
    }

    /// Replaces the adapter: the address stays the same, so kernels need no new pointers.
    pub fn swap(&mut self, weights: &[u8]) -> Result<(), DriverError> {
        self.stream.synchronize()?;
        let prop = self.prop();
        let mut h = 0;
        unsafe {
            if let Some(old) = self.backing.take() {
                sys::cuMemUnmap(self.va, self.bytes).result()?;
                sys::cuMemRelease(old).result()?;
            }
            sys::cuMemCreate(&mut h, self.bytes, &prop, 0).result()?;
            sys::cuMemMap(self.va, self.bytes, 0, h, 0).result()?;
        }
        self.backing = Some(h);
        self.upload(weights)
    }
}

impl Drop for AdapterSlot {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        unsafe {
            if let Some(h) = self.backing.take() {
                let _ = sys::cuMemUnmap(self.va, self.bytes);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
        }
    }
}

pub fn serve_adapters(ctx: &Arc<CudaContext>, adapters: &[Vec<u8>]) -> Result<(), DriverError> {
    let mut slot = AdapterSlot::new(ctx, 32 << 20)?;
    let mut it = adapters.iter();
    if let Some(first) = it.next() {
        slot.load_initial(first)?;
    }
    it.try_for_each(|w| slot.swap(w))
}
