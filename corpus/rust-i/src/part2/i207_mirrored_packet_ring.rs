//! case: NIC-style mirrored packet ring (one VMM allocation mapped twice back to back, driver sys calls) drained by a kernel that writes frame headers through the low view and reads the payload back through the high view, with no fence.proxy.alias in its source
//! expect: unfenced_vmm_alias=1

use cudarc::driver::sys::{
    self, CUdeviceptr, CUmemAccessDesc, CUmemAccess_flags, CUmemAllocationGranularity_flags, CUmemAllocationProp,
    CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation, CUmemLocationType, CUresult,
};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::sync::Arc;

const FRAMER_SRC: &str = r#"
// lo and hi are the same bytes: hi = lo + ring_size. The consumer side reads through hi.
extern "C" __global__ void frame_packets(unsigned char* lo, const unsigned char* hi,
                                         const unsigned* starts, const unsigned* lens,
                                         unsigned ring_size, unsigned n, unsigned* checksums) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    unsigned at = starts[p] % ring_size;
    lo[at] = 0xA5;                         // mark the frame as claimed
    lo[(at + 1) % ring_size] = (unsigned char)(lens[p] & 0xff);
    unsigned sum = 0;
    for (unsigned i = 0; i < lens[p]; ++i) sum += hi[(at + i) % ring_size];
    checksums[p] = sum;
}
"#;

fn ok(r: CUresult) -> Result<(), Box<dyn std::error::Error>> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(format!("{r:?}").into()) }
}

pub struct MirroredRing {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl MirroredRing {
    pub fn new(ctx: &Arc<CudaContext>, min_size: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let device = ctx.ordinal() as i32;
        let mut prop: CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location = CUmemLocation { type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let mut gran = 0usize;
        let mut base: CUdeviceptr = 0;
        let mut handle: CUmemGenericAllocationHandle = 0;
        let access = CUmemAccessDesc { location: prop.location, flags: CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        unsafe {
            ok(sys::cuMemGetAllocationGranularity(&mut gran, &prop, CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM))?;
            let size = min_size.div_ceil(gran) * gran;
            ok(sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0))?;
            ok(sys::cuMemCreate(&mut handle, size, &prop, 0))?;
            ok(sys::cuMemMap(base, size, 0, handle, 0))?;
            ok(sys::cuMemMap(base + size as u64, size, 0, handle, 0))?;
            ok(sys::cuMemSetAccess(base, 2 * size, &access, 1))?;
            Ok(MirroredRing { base, size, handle })
        }
    }

    pub fn low(&self) -> CUdeviceptr {
        self.base
    }

    pub fn high(&self) -> CUdeviceptr {
        self.base + self.size as u64
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemUnmap(self.base, self.size);
            sys::cuMemUnmap(self.base + self.size as u64, self.size);
            sys::cuMemRelease(self.handle);
            sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}

pub struct PacketFramer {
    stream: Arc<CudaStream>,
    framer: CudaFunction,
    ring: MirroredRing,
}

impl PacketFramer {
    pub fn new(ctx: &Arc<CudaContext>, ring_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(FRAMER_SRC)?)?;
        Ok(PacketFramer { stream: ctx.new_stream()?, framer: module.load_function("frame_packets")?, ring: MirroredRing::new(ctx, ring_bytes)? })
    }

    pub fn frame(&self, starts: &CudaSlice<u32>, lens: &CudaSlice<u32>, checksums: &mut CudaSlice<u32>) -> Result<(), Box<dyn std::error::Error>> {
        let lo = self.ring.low();
        let hi = self.ring.high();
        let ring_size = self.ring.size as u32;
        let n = starts.len() as u32;
        let mut launch = self.stream.launch_builder(&self.framer);
        launch.arg(&lo).arg(&hi).arg(starts).arg(lens).arg(&ring_size).arg(&n).arg(checksums);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n))? }; // EXPECT: unfenced_vmm_alias
        self.stream.synchronize()?;
        Ok(())
    }
}
