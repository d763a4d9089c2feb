//! case: LoRA adapter hot-swap keeps one reserved slot per adapter rank; swap() waits for the stream, releases the old physical handle (the mapping keeps it alive) and maps the new handle at the same, still-mapped, address
//! expect: vmm_lifecycle=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::{Arc, Mutex};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const APPLY_SRC: &str = r#"
extern "C" __global__ void apply_lora(const float* a, const float* b, const float* x, float* y,
                                      unsigned int d, unsigned int r, float alpha) {
    unsigned int row = blockIdx.x * blockDim.x + threadIdx.x;
    if (row >= d) return;
    float acc = 0.f;
    for (unsigned int k = 0; k < r; ++k) {
        float t = 0.f;
        for (unsigned int j = 0; j < d; ++j) t += a[k * d + j] * x[j];
        acc += b[row * r + k] * t;
    }
    y[row] += alpha * acc;
}
"#;

pub struct AdapterSlot {
    device: sys::CUdevice,
    va: sys::CUdeviceptr,
    bytes: usize,
    current: Option<sys::CUmemGenericAllocationHandle>,
    stream: sys::CUstream,
}

fn device_prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    let mut p: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    p
}

impl AdapterSlot {
    pub fn new(device: sys::CUdevice, bytes: usize, stream: sys::CUstream) -> Res<Self> {
        let mut va = 0;
        unsafe { sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0) }.result()?;
        Ok(AdapterSlot { device, va, bytes, current: None, stream })
    }

    fn grant(&self) -> Res<()> {
        let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = self.device;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe { sys::cuMemSetAccess(self.va, self.bytes, &access, 1) }.result()?;
        Ok(())
    }

    /// Installs freshly loaded adapter weights (`next` holds `self.bytes` bytes).
    pub fn swap(&mut self, next: sys::CUmemGenericAllocationHandle) -> Res<()> {
        unsafe { drv::stream::synchronize(self.stream) }?;
        if let Some(old) = self.current.replace(next) {
            unsafe { sys::cuMemRelease(old) }.result()?;
        }
        unsafe { sys::cuMemMap(self.va, self.bytes, 0, next, 0) }.result()?; // EXPECT: vmm_lifecycle
        self.grant()
    }

    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.va
    }
}

impl Drop for AdapterSlot {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            if let Some(h) = self.current.take() {
                let _ = sys::cuMemUnmap(self.va, self.bytes);
                let _ = sys::cuMemRelease(h);
            }
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
        }
    }
}

/// Loads adapter weights from a pinned host blob into a new physical allocation.
fn load_adapter(device: sys::CUdevice, stream: sys::CUstream, blob: *const c_void, bytes: usize) -> Res<sys::CUmemGenericAllocationHandle> {
    let prop = device_prop(device);
    let (mut handle, mut tmp_va) = (0, 0);
    let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
    access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    unsafe {
        sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
        sys::cuMemAddressReserve(&mut tmp_va, bytes, 0, 0, 0).result()?;
        sys::cuMemMap(tmp_va, bytes, 0, handle, 0).result()?;
        sys::cuMemSetAccess(tmp_va, bytes, &access, 1).result()?;
        sys::cuMemcpyHtoDAsync_v2(tmp_va, blob, bytes, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemUnmap(tmp_va, bytes).result()?;
        sys::cuMemAddressFree(tmp_va, bytes).result()?;
    }
    Ok(handle)
}

pub struct LoraServer {
    device: sys::CUdevice,
    stream: sys::CUstream,
    apply: sys::CUfunction,
    slot: Arc<Mutex<AdapterSlot>>,
    blob: *mut c_void,
    blob_bytes: usize,
}

impl LoraServer {
    pub fn new(adapter_bytes: usize) -> Res<Self> {
        drv::init()?;
        let device = drv::device::get(0)?;
        let ctx = unsafe { drv::primary_ctx::retain(device) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(APPLY_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let apply = unsafe { drv::module::get_function(module, CString::new("apply_lora")?) }?;
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &device_prop(device), sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let bytes = adapter_bytes.div_ceil(gran) * gran;
        let blob = unsafe { drv::malloc_host(bytes, 0) }?;
        let slot = Arc::new(Mutex::new(AdapterSlot::new(device, bytes, stream)?));
        Ok(LoraServer { device, stream, apply, slot, blob, blob_bytes: bytes })
    }

    pub fn install(&self, weights: &[u8]) -> Res<()> {
        let n = weights.len().min(self.blob_bytes);
        unsafe { std::slice::from_raw_parts_mut(self.blob.cast::<u8>(), n) }.copy_from_slice(&weights[..n]);
        let handle = load_adapter(self.device, self.stream, self.blob, self.blob_bytes)?;
        let mut slot = self.slot.lock().map_err(|_| "adapter slot poisoned")?;
        slot.swap(handle)
    }
}
