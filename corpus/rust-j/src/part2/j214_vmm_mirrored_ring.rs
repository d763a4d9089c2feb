//! case: stream-processing ingest ring maps one physical allocation twice back to back (driver VMM via cudarc's sys layer) so readers never see a wrap; the publish kernel writes a slot through the first mapping and reads it back through the mirror mapping with no `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
extern "C" __global__ void ring_publish(float* ring, const float* mirror, const float* incoming,
                                        float* echo, unsigned head, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned slot = (head + i) % cap;
    ring[slot] = incoming[i];
    // consumers read through the mirror view: echo what they will observe
    echo[i] = mirror[slot];
}
"#;

#[derive(Debug)]
pub struct VmmError(pub &'static str, pub sys::CUresult);

impl std::fmt::Display for VmmError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed: {:?}", self.0, self.1)
    }
}

impl std::error::Error for VmmError {}

fn ck(what: &'static str, r: sys::CUresult) -> Result<(), VmmError> {
    if r == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(VmmError(what, r)) }
}

fn device_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: ordinal },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    }
}

pub struct MirroredRing {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    publish: CudaFunction,
    base: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: u32,
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let prop = device_prop(ctx.ordinal() as i32);
        let mut gran = 0usize;
        ck("granularity", unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
        })?;
        let bytes = min_bytes.div_ceil(gran) * gran;
        let mut handle = 0;
        ck("create", unsafe { sys::cuMemCreate(&mut handle, bytes, &prop, 0) })?;
        let mut base = 0;
        ck("reserve", unsafe { sys::cuMemAddressReserve(&mut base, 2 * bytes, 0, 0, 0) })?;
        ck("map lo", unsafe { sys::cuMemMap(base, bytes, 0, handle, 0) })?;
        ck("map hi", unsafe { sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0) })?;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        ck("access", unsafe { sys::cuMemSetAccess(base, 2 * bytes, &access, 1) })?;
        let publish = ctx.load_module(compile_ptx(RING_SRC)?)?.load_function("ring_publish")?;
        Ok(Self { ctx: ctx.clone(), stream: ctx.new_stream()?, publish, base, bytes, handle, head: 0 })
    }

    fn capacity(&self) -> u32 {
        (self.bytes / std::mem::size_of::<f32>()) as u32
    }

    /// Appends `incoming` and fills `echo` with what readers of the mirror view will see.
    pub fn publish(&mut self, incoming: &CudaSlice<f32>, echo: &mut CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        let n = incoming.len() as u32;
        let cap = self.capacity();
        let ring = self.base;
        let mirror = self.base + self.bytes as u64;
        let head = self.head;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.stream.launch_builder(&self.publish).arg(&ring).arg(&mirror).arg(incoming).arg(echo).arg(&head).arg(&n).arg(&cap).launch(cfg) }?; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + n) % cap;
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemUnmap(self.base, self.bytes);
            let _ = sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.bytes);
        }
    }
}
