//! case: event-log queue on a mirrored VMM reservation (one allocation mapped at base and base+size); the compaction kernel writes through one view and, after fence.proxy.alias, reads the wrapped span through the other; teardown synchronizes, unmaps, releases, frees
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const COMPACT_SRC: &str = r#"
extern "C" __global__ void compact_log(unsigned int* log_lo, const unsigned int* log_hi,
                                       unsigned int head, unsigned int count, unsigned int cap,
                                       unsigned int tombstone, unsigned int* live_out) {
    unsigned int t = threadIdx.x;
    // Clear tombstoned entries in place through the low view.
    for (unsigned int i = t; i < count; i += blockDim.x) {
        unsigned int slot = (head + i) % cap;
        if (log_lo[slot] == tombstone) log_lo[slot] = 0u;
    }
    // The other view is another proxy for the same bytes: order the writes above first.
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    unsigned int live = 0;
    for (unsigned int i = t; i < count; i += blockDim.x) {
        unsigned int pos = head + i;
        unsigned int v = pos < cap ? log_lo[pos] : log_hi[pos - cap];
        live += v != 0u;
    }
    atomicAdd(live_out, live);
}
"#;

pub struct EventLog {
    base: sys::CUdeviceptr,
    bytes: usize,
    cap: u32,
    handle: sys::CUmemGenericAllocationHandle,
    stream: sys::CUstream,
    compact: sys::CUfunction,
    d_live: sys::CUdeviceptr,
    h_live: *mut u32,
}

impl EventLog {
    pub fn open(device: sys::CUdevice, min_entries: usize) -> Res<Self> {
        let mut prop: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = device;
        let mut gran = 0usize;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM)
                .result()?;
        }
        let bytes = (min_entries * 4).div_ceil(gran) * gran;
        let (mut handle, mut base) = (0, 0);
        let mut access: sys::CUmemAccessDesc = unsafe { std::mem::zeroed() };
        access.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        access.location.id = device;
        access.flags = sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
        unsafe {
            sys::cuMemCreate(&mut handle, bytes, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, bytes * 2, 0, 0, 0).result()?;
            sys::cuMemMap(base, bytes, 0, handle, 0).result()?;
            sys::cuMemMap(base + bytes as u64, bytes, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, bytes * 2, &access, 1).result()?;
        }

        let ptx = cudarc::nvrtc::compile_ptx(COMPACT_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let compact = unsafe { drv::module::get_function(module, CString::new("compact_log")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let d_live = unsafe { drv::malloc_sync(4) }?;
        let h_live = unsafe { drv::malloc_host(4, 0) }?.cast::<u32>();
        unsafe { sys::cuMemsetD32Async(base, 0, bytes / 4, stream) }.result()?;
        Ok(EventLog { base, bytes, cap: (bytes / 4) as u32, handle, stream, compact, d_live, h_live })
    }

    pub fn compact(&mut self, head: u32, count: u32, tombstone: u32) -> Res<u32> {
        let mut lo = self.base;
        let mut hi = self.base + self.bytes as u64;
        let (mut h, mut c, mut cap, mut tomb) = (head, count, self.cap, tombstone);
        let mut live = self.d_live;
        let mut params: [*mut c_void; 7] = [
            (&mut lo as *mut u64).cast(),
            (&mut hi as *mut u64).cast(),
            (&mut h as *mut u32).cast(),
            (&mut c as *mut u32).cast(),
            (&mut cap as *mut u32).cast(),
            (&mut tomb as *mut u32).cast(),
            (&mut live as *mut u64).cast(),
        ];
        unsafe {
            sys::cuMemsetD32Async(self.d_live, 0, 1, self.stream).result()?;
            sys::cuLaunchKernel(self.compact, 1, 1, 1, 512, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_live.cast(), self.d_live, 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
            Ok(*self.h_live)
        }
    }
}

impl Drop for EventLog {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.base, self.bytes);
            let _ = sys::cuMemUnmap(self.base + self.bytes as u64, self.bytes);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, self.bytes * 2);
            let _ = sys::cuMemFree_v2(self.d_live);
            let _ = sys::cuMemFreeHost(self.h_live.cast());
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
