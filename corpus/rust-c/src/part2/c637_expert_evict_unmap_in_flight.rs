//! case: a mixture-of-experts weight cache evicts an expert by enqueueing a kernel that packs its VMM-mapped weights into a compact buffer and then immediately unmapping and releasing the mapping, without waiting for the packing kernel
//! expect: missing_sync=1

use std::collections::HashMap;
use std::error::Error;
use std::mem::zeroed;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const PACK_SRC: &str = r#"
// bf16 by truncation: the high half of each fp32 word.
extern "C" __global__ void pack_bf16(const float* w, unsigned short* packed, unsigned long long n) {
    unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
    if (i < n) packed[i] = (unsigned short)(__float_as_uint(w[i]) >> 16);
}
"#;

struct ResidentExpert {
    va: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
}

pub struct ExpertCache {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    pack: CudaFunction,
    resident: HashMap<u32, ResidentExpert>,
    packed: HashMap<u32, CudaSlice<u16>>,
}

impl ExpertCache {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let pack = ctx.load_module(compile_ptx(PACK_SRC)?)?.load_function("pack_bf16")?;
        Ok(Self { ctx, stream, pack, resident: HashMap::new(), packed: HashMap::new() })
    }

    pub fn make_resident(&mut self, expert: u32, bytes: usize) -> Result<sys::CUdeviceptr, Box<dyn Error>> {
        let mut prop: sys::CUmemAllocationProp = unsafe { zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = self.ctx.ordinal() as i32;
        let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let (mut va, mut handle) = (0, 0);
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut va, bytes, 0, 0, 0).result()?;
            sys::cuMemMap(va, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(va, bytes, &access, 1).result()?;
        }
        self.resident.insert(expert, ResidentExpert { va, bytes, handle });
        Ok(va)
    }

    /// Keeps a bf16 copy of the expert and gives its fp32 pages back to the pool.
    pub fn evict(&mut self, expert: u32) -> Result<(), Box<dyn Error>> {
        let Some(e) = self.resident.remove(&expert) else { return Ok(()) };
        let n = (e.bytes / 4) as u64;
        let mut packed = self.stream.alloc_zeros::<u16>(n as usize)?;
        unsafe {
            self.stream
                .launch_builder(&self.pack)
                .arg(&e.va)
                .arg(&mut packed)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        self.packed.insert(expert, packed);
        unsafe {
            sys::cuMemUnmap(e.va, e.bytes).result()?; // EXPECT: missing_sync
            sys::cuMemRelease(e.handle).result()?;
            sys::cuMemAddressFree(e.va, e.bytes).result()?;
        }
        Ok(())
    }
}
