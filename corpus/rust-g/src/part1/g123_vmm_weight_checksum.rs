//! case: weights of a model shard placed in VMM memory (reserve, create, map, set access) and uploaded from a `cuMemAllocHost` staging buffer; the loader then computes a checksum by viewing the mapping's device address as a host slice, and its `release` frees the reserved range before unmapping it
//! expect: host_deref_device_ptr=1, vmm_lifecycle=1

use std::ffi::c_void;

use cudarc::driver::{result, sys, CudaContext};

type Result<T> = std::result::Result<T, Box<dyn std::error::Error>>;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

pub struct ShardWeights {
    va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    stream: sys::CUstream,
    pub checksum: u64,
}

impl ShardWeights {
    pub fn load(dev: sys::CUdevice, stream: sys::CUstream, weights: &[u8]) -> Result<Self> {
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: std::ptr::null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?
        };
        let size = weights.len().div_ceil(gran) * gran;
        let (mut va, mut handle) = (0, 0);
        let mut staging: *mut c_void = std::ptr::null_mut();
        unsafe {
            sys::cuMemAddressReserve(&mut va, size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemMap(va, size, 0, handle, 0).result()?;
            let desc = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(va, size, &desc, 1).result()?;

            sys::cuMemAllocHost_v2(&mut staging, weights.len()).result()?;
            std::ptr::copy_nonoverlapping(weights.as_ptr(), staging as *mut u8, weights.len());
            sys::cuMemcpyHtoDAsync_v2(va, staging, weights.len(), stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
            sys::cuMemFreeHost(staging).result()?;
        }

        let resident = unsafe { std::slice::from_raw_parts(va as *const u8, weights.len()) }; // EXPECT: host_deref_device_ptr
        let checksum = fnv1a(resident);
        if checksum != fnv1a(weights) {
            return Err("weight upload corrupted".into());
        }
        Ok(ShardWeights { va, size, handle, stream, checksum })
    }

    pub fn device_ptr(&self) -> sys::CUdeviceptr {
        self.va
    }

    pub fn release(self) -> Result<()> {
        unsafe {
            sys::cuStreamSynchronize(self.stream).result()?;
            sys::cuMemAddressFree(self.va, self.size).result()?; // EXPECT: vmm_lifecycle
            sys::cuMemUnmap(self.va, self.size).result()?;
            sys::cuMemRelease(self.handle).result()?;
        }
        Ok(())
    }
}

pub fn load_and_swap(shards: &[Vec<u8>]) -> Result<Vec<u64>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
    let mut sums = Vec::new();
    for shard in shards {
        let w = ShardWeights::load(ctx.cu_device(), stream, shard)?;
        sums.push(w.checksum);
        w.release()?;
    }
    unsafe { result::stream::destroy(stream)? };
    Ok(sums)
}
