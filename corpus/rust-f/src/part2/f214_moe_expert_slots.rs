//! case: mixture-of-experts server pages expert weights into VMM slots; materialize() maps the slot and uploads the weights from pinned memory before granting access, then a debug line dereferences the slot's device address on the host
//! expect: vmm_lifecycle=1, host_deref_device_ptr=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::collections::HashMap;
use std::ffi::c_void;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

pub struct ExpertSlot {
    pub va: sys::CUdeviceptr,
    pub bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct ExpertCache {
    device: sys::CUdevice,
    stream: sys::CUstream,
    gran: usize,
    staging: *mut c_void,
    staging_bytes: usize,
    slots: HashMap<u32, ExpertSlot>,
    verbose: bool,
}

impl ExpertCache {
    pub fn new(max_expert_bytes: usize, verbose: bool) -> Res<Self> {
        drv::init()?;
        let device = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(device) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let prop = Self::prop(device);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
                .result()?;
        }
        let mut staging = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut staging, max_expert_bytes) }.result()?;
        Ok(ExpertCache { device, stream, gran, staging, staging_bytes: max_expert_bytes, slots: HashMap::new(), verbose })
    }

    fn prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        prop
    }

    /// Makes expert `id` resident; `weights` is its serialized f32 tensor.
    pub fn materialize(&mut self, id: u32, weights: &[f32]) -> Res<sys::CUdeviceptr> {
        if let Some(slot) = self.slots.get(&id) {
            return Ok(slot.va);
        }
        let raw_bytes = std::mem::size_of_val(weights);
        if raw_bytes > self.staging_bytes {
            return Err(format!("expert {id} does not fit the staging buffer").into());
        }
        let bytes = raw_bytes.div_ceil(self.gran) * self.gran;
        let prop = Self::prop(self.device);
        let (mut handle, mut va) = (0, 0);
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
        }

        // Stage and start the upload as early as possible; it overlaps the bookkeeping below.
        unsafe { std::slice::from_raw_parts_mut(self.staging.cast::<f32>(), weights.len()) }.copy_from_slice(weights);
        unsafe { sys::cuMemcpyHtoDAsync_v2(va, self.staging, raw_bytes, self.stream) }.result()?; // EXPECT: vmm_lifecycle

        let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = self.device;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe { sys::cuMemSetAccess(va, bytes, &access, 1) }.result()?;
        unsafe { drv::stream::synchronize(self.stream) }?;

        if self.verbose {
            let first = unsafe { *(va as *const f32) }; // EXPECT: host_deref_device_ptr
            eprintln!("expert {id}: {bytes} bytes at {va:#x}, w[0] = {first}");
        }
        self.slots.insert(id, ExpertSlot { va, bytes, handle });
        Ok(va)
    }

    pub fn evict(&mut self, id: u32) -> Res<()> {
        if let Some(slot) = self.slots.remove(&id) {
            unsafe {
                drv::stream::synchronize(self.stream)?;
                sys::cuMemUnmap(slot.va, slot.bytes).result()?;
                sys::cuMemRelease(slot.handle).result()?;
                sys::cuMemAddressFree(slot.va, slot.bytes).result()?;
            }
        }
        Ok(())
    }
}

impl Drop for ExpertCache {
    fn drop(&mut self) {
        let ids: Vec<u32> = self.slots.keys().copied().collect();
        for id in ids {
            let _ = self.evict(id);
        }
        unsafe {
            let _ = sys::cuMemFreeHost(self.staging);
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
