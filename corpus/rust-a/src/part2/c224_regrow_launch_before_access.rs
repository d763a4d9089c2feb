//! case: a device buffer that grows by unmapping its old backing and mapping a bigger allocation at the same address; the refill kernel is launched before access is granted to the new mapping
//! expect: vmm_lifecycle=1
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void fill(float* v, float x, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = x;
}
"#;

pub struct Regrowable {
    base: CUdeviceptr,
    reserved: usize,
    mapped: usize,
    handle: Option<sys::CUmemGenericAllocationHandle>,
    prop: sys::CUmemAllocationProp,
    stream: Arc<CudaStream>,
    fill: CudaFunction,
}

impl Regrowable {
    fn set_access(&self) -> Result<(), DriverError> {
        let d = sys::CUmemAccessDesc { location: self.prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe { sys::cuMemSetAccess(self.base, self.mapped, &d, 1) }.result()
    }

    pub fn resize(&mut self, bytes: usize, value: f32) -> Result<(), DriverError> {
        assert!(bytes <= self.reserved);
        self.stream.synchronize()?;
        if let Some(old) = self.handle.take() {
            unsafe {
                sys::cuMemUnmap(self.base, self.mapped).result()?;
                sys::cuMemRelease(old).result()?;
            }
        }
        let mut h = 0;
        unsafe {
            sys::cuMemCreate(&mut h, bytes, &self.prop, 0).result()?;
            sys::cuMemMap(self.base, bytes, 0, h, 0).result()?;
        }
        self.handle = Some(h);
        self.mapped = bytes;
        let n = (bytes / 4) as u32;
        let mut b = self.stream.launch_builder(&self.fill);
        b.arg(&self.base).arg(&value).arg(&n);
        unsafe { b.launch(LaunchConfig::for_num_elems(n)) }?; // EXPECT: vmm_lifecycle
        self.set_access()
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = ctx.cu_device();
    let reserved = 256 << 20;
    let mut base = 0;
    unsafe { sys::cuMemAddressReserve(&mut base, reserved, 0, 0, 0) }.result()?;
    let fill = ctx.load_module(compile_ptx(SRC)?)?.load_function("fill")?;
    let mut buf = Regrowable { base, reserved, mapped: 0, handle: None, prop, stream: ctx.default_stream(), fill };
    buf.resize(32 << 20, 1.0)?;
    buf.stream.synchronize()?;
    if let Some(h) = buf.handle.take() {
        unsafe {
            sys::cuMemUnmap(buf.base, buf.mapped).result()?;
            sys::cuMemRelease(h).result()?;
        }
    }
    unsafe { sys::cuMemAddressFree(base, reserved) }.result()?;
    Ok(())
}
