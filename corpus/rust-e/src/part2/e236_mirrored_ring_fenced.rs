//! case: near-miss of the unfenced mirrored ring: an audio resampler's ring maps one allocation at base and base + size; the kernel writes new samples through the upper view, executes `fence.proxy.alias` and only then reads the filter window linearly from base (crossing into the upper view)
//! expect: none

use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;

use cudarc::driver::{result, sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const RESAMPLE_SRC: &str = r#"
// `upper` is the second mapping (base + size); `linear` starts at base and runs on into `upper`,
// so a window that wraps around the end of the ring is still contiguous.
extern "C" __global__ void push_and_filter(float* upper, const float* linear, const float* fresh,
                                           unsigned int write_pos, unsigned int count, unsigned int ring_len,
                                           const float* taps, unsigned int n_taps, float* out) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) upper[(write_pos + i) % ring_len] = fresh[i];
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    if (i < count) {
        unsigned int start = (write_pos + i + ring_len - n_taps + 1) % ring_len;
        float acc = 0.f;
        for (unsigned int t = 0; t < n_taps; ++t) acc += taps[t] * linear[start + t];
        out[i] = acc;
    }
}
"#;

pub struct AudioRing {
    base: sys::CUdeviceptr,
    bytes: usize,
    handle: sys::CUmemGenericAllocationHandle,
    write_pos: u32,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
}

impl AudioRing {
    pub fn new(device: sys::CUdevice, min_samples: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let mut prop: sys::CUmemAllocationProp = unsafe { MaybeUninit::zeroed().assume_init() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let (mut gran, mut base, mut handle) = (0usize, 0, 0);
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let bytes = (min_samples * 4).div_ceil(gran) * gran;
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * bytes, gran, 0, 0).result()?;
            sys::cuMemMap(base, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0).result()?;
            let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(base, 2 * bytes, &access, 1).result()?;

            let ptx = CString::new(compile_ptx(RESAMPLE_SRC)?.to_src())?;
            let module = result::module::load_data(ptx.as_ptr() as *const c_void)?;
            let kernel = result::module::get_function(module, CString::new("push_and_filter")?)?;
            Ok(Self { base, bytes, handle, write_pos: 0, module, kernel })
        }
    }

    pub fn push(&mut self, stream: sys::CUstream, fresh: sys::CUdeviceptr, count: u32, taps: sys::CUdeviceptr, n_taps: u32, out: sys::CUdeviceptr) -> Result<(), DriverError> {
        assert!(count <= 1024, "one block per push");
        let ring_len = (self.bytes / 4) as u32;
        let (mut upper, mut linear) = (self.base + self.bytes as u64, self.base);
        let (mut fresh, mut wp, mut cnt, mut len, mut taps, mut nt, mut out) = (fresh, self.write_pos, count, ring_len, taps, n_taps, out);
        let mut params: [*mut c_void; 9] = [
            &mut upper as *mut _ as *mut c_void,
            &mut linear as *mut _ as *mut c_void,
            &mut fresh as *mut _ as *mut c_void,
            &mut wp as *mut _ as *mut c_void,
            &mut cnt as *mut _ as *mut c_void,
            &mut len as *mut _ as *mut c_void,
            &mut taps as *mut _ as *mut c_void,
            &mut nt as *mut _ as *mut c_void,
            &mut out as *mut _ as *mut c_void,
        ];
        unsafe { result::launch_kernel(self.kernel, (1, 1, 1), (count.max(1), 1, 1), 0, stream, &mut params)? };
        self.write_pos = (self.write_pos + count) % ring_len;
        Ok(())
    }
}

impl Drop for AudioRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.bytes);
            let _ = sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.bytes);
            let _ = result::module::unload(self.module);
        }
    }
}
