//! case: a log-ingest ring buffer maps one physical allocation twice back to back (base and base + size) so records never wrap; the append kernel writes a record through the first view and checksums the wrapped part through the second view in the same launch, with no `fence.proxy.alias`
//! expect: unfenced_vmm_alias=1

use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;

use cudarc::driver::{result, sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const RING_SRC: &str = r#"
// `ring` is the first view, `mirror` the same bytes one ring size later.
extern "C" __global__ void append_and_checksum(unsigned int* ring, const unsigned int* mirror,
                                               const unsigned int* rec, unsigned int head,
                                               unsigned int len, unsigned int ring_words,
                                               unsigned int* checksum) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < len) {
        unsigned int slot = (head + i) % ring_words;
        ring[slot] = rec[i];
        // consumers read through the mirrored view; checksum what they will see
        atomicAdd(checksum, mirror[slot]);
    }
}
"#;

pub struct MirroredRing {
    base: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    head: u32,
}

fn device_prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

impl MirroredRing {
    pub unsafe fn new(device: sys::CUdevice, min_bytes: usize) -> Result<Self, DriverError> {
        let prop = device_prop(device);
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
        }
        let size = min_bytes.div_ceil(gran) * gran;
        let mut handle = 0;
        let mut base = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            let access = sys::CUmemAccessDesc {
                location: prop.location,
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            sys::cuMemSetAccess(base, 2 * size, &access, 1).result()?;
        }
        Ok(Self { base, size, handle, head: 0 })
    }

    pub unsafe fn append(&mut self, f: sys::CUfunction, stream: sys::CUstream, record: sys::CUdeviceptr, len: u32, checksum: sys::CUdeviceptr) -> Result<(), DriverError> {
        let mut ring = self.base;
        let mut mirror = self.base + self.size as u64;
        let (mut rec, mut head, mut len_v, mut words, mut sum) = (record, self.head, len, (self.size / 4) as u32, checksum);
        let mut params: [*mut c_void; 7] = [
            &mut ring as *mut _ as *mut c_void,
            &mut mirror as *mut _ as *mut c_void,
            &mut rec as *mut _ as *mut c_void,
            &mut head as *mut _ as *mut c_void,
            &mut len_v as *mut _ as *mut c_void,
            &mut words as *mut _ as *mut c_void,
            &mut sum as *mut _ as *mut c_void,
        ];
        unsafe { result::launch_kernel(f, (len.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params)? }; // EXPECT: unfenced_vmm_alias
        self.head = (self.head + len) % words;
        Ok(())
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.size);
            let _ = sys::cuMemUnmap(self.base + self.size as u64, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.size);
        }
    }
}

pub fn load_append_kernel() -> Result<(sys::CUmodule, sys::CUfunction), Box<dyn std::error::Error>> {
    let ptx = CString::new(compile_ptx(RING_SRC)?.to_src())?;
    let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void)? };
    let f = unsafe { result::module::get_function(module, CString::new("append_and_checksum")?)? };
    Ok((module, f))
}
