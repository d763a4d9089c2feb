//! case: tensor allocator on VMM that drops its reference to the physical handle right after mapping (CUDA keeps the memory alive while mapped), grants access before the first memset, and tears down in order after synchronizing
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::OnceLock;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const GELU_SRC: &str = r#"
extern "C" __global__ void gelu_inplace(float* x, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
"#;

static PTX: OnceLock<String> = OnceLock::new();

fn gelu_ptx() -> Res<&'static str> {
    if let Some(p) = PTX.get() {
        return Ok(p.as_str());
    }
    let compiled = cudarc::nvrtc::compile_ptx(GELU_SRC)?.to_src();
    Ok(PTX.get_or_init(|| compiled).as_str())
}

pub struct VmmTensor {
    va: sys::CUdeviceptr,
    bytes: usize,
    stream: sys::CUstream,
}

impl VmmTensor {
    pub fn zeros(device: sys::CUdevice, elems: usize, stream: sys::CUstream) -> Res<Self> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let bytes = (elems * 4).div_ceil(gran) * gran;
        let mut handle = 0;
        let mut va = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            // The mapping holds the memory from here on; the handle itself is no longer needed.
            sys::cuMemRelease(handle).result()?;
            let mut access: sys::CUmemAccessDesc = std::mem::zeroed();
            access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
            access.location.id = device;
            access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            sys::cuMemSetAccess(va, bytes, &access, 1).result()?;
            sys::cuMemsetD32Async(va, 0, bytes / 4, stream).result()?;
        }
        Ok(VmmTensor { va, bytes, stream })
    }

    pub fn gelu(&mut self, func: sys::CUfunction) -> Res<()> {
        let mut x = self.va;
        let mut n = (self.bytes / 4) as u64;
        let mut params: [*mut c_void; 2] = [(&mut x as *mut u64).cast(), (&mut n as *mut u64).cast()];
        let blocks = n.div_ceil(256) as u32;
        unsafe { drv::launch_kernel(func, (blocks, 1, 1), (256, 1, 1), 0, self.stream, &mut params) }?;
        Ok(())
    }
}

impl Drop for VmmTensor {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.bytes);
            let _ = sys::cuMemAddressFree(self.va, self.bytes);
        }
    }
}

pub fn run(elems: usize) -> Res<()> {
    drv::init()?;
    let dev = drv::device::get(0)?;
    let ctx = unsafe { drv::primary_ctx::retain(dev) }?;
    unsafe { drv::ctx::set_current(ctx) }?;
    let image = CString::new(gelu_ptx()?)?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
    let func = unsafe { drv::module::get_function(module, CString::new("gelu_inplace")?) }?;
    let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
    {
        let mut t = VmmTensor::zeros(dev, elems, stream)?;
        t.gelu(func)?;
    }
    unsafe { drv::stream::destroy(stream) }?;
    Ok(())
}
