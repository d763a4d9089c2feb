//! case: telemetry log ring on a mirrored VMM reservation (the same physical allocation mapped at base and base+size): one kernel appends the new records through the base view and, in the same launch, drains a contiguous batch through the upper view with only a barrier in between, no fence.proxy.alias
//! expect: unfenced_vmm_alias=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const LOG_SRC: &str = r#"
struct Record { unsigned long long ts; unsigned sensor; float value; };

extern "C" __global__ void append_and_drain(Record* ring, const Record* ring_view,
                                            const Record* fresh, unsigned nfresh, unsigned head,
                                            unsigned tail, unsigned ndrain, unsigned slots,
                                            Record* batch) {
    for (unsigned i = threadIdx.x; i < nfresh; i += blockDim.x)
        ring[(head + i) % slots] = fresh[i];
    __syncthreads();
    // The window tail..tail+ndrain is contiguous: past the lower mapping it continues in
    // ring_view, the second mapping of the same records.
    for (unsigned j = threadIdx.x; j < ndrain; j += blockDim.x) {
        unsigned k = tail + j;
        batch[j] = (k < slots) ? ring[k] : ring_view[k - slots];
    }
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Record {
    pub ts: u64,
    pub sensor: u32,
    pub value: f32,
}

pub struct LogRing {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
    head: u32,
    tail: u32,
}

impl LogRing {
    fn slots(&self) -> u32 {
        (self.size / std::mem::size_of::<Record>()) as u32
    }
}

fn location(dev: i32) -> sys::CUmemLocation {
    sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev }
}

pub fn create_ring(dev: i32, size: usize) -> Result<LogRing> {
    let prop = sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: location(dev),
        win32HandleMetaData: null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    };
    let access = sys::CUmemAccessDesc { location: location(dev), flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
    let (mut handle, mut base) = (0, 0);
    unsafe {
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
        for view in 0..2u64 {
            sys::cuMemMap(base + view * size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base + view * size as u64, size, &access, 1).result()?;
        }
    }
    Ok(LogRing { base, size, handle, head: 0, tail: 0 })
}

pub struct TelemetrySink {
    ring: LogRing,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    stream: sys::CUstream,
    d_fresh: CUdeviceptr,
    d_batch: CUdeviceptr,
    pinned_fresh: *mut Record,
    pinned_batch: *mut Record,
    max: usize,
}

impl TelemetrySink {
    pub fn open(ring_bytes: usize, max_records: usize) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ring = create_ring(dev, ring_bytes)?;
        let ptx = cudarc::nvrtc::compile_ptx(LOG_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut kernel, mut stream) = (null_mut(), null_mut(), null_mut());
        let (mut d_fresh, mut d_batch) = (0, 0);
        let (mut pf, mut pb): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        let bytes = max_records * std::mem::size_of::<Record>();
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut kernel, module, c"append_and_drain".as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut d_fresh, bytes).result()?;
            sys::cuMemAlloc_v2(&mut d_batch, bytes).result()?;
            sys::cuMemAllocHost_v2(&mut pf, bytes).result()?;
            sys::cuMemAllocHost_v2(&mut pb, bytes).result()?;
        }
        Ok(Self { ring, module, kernel, stream, d_fresh, d_batch, pinned_fresh: pf.cast(), pinned_batch: pb.cast(), max: max_records })
    }

    /// Appends `fresh` and returns the oldest `drain` records, in order.
    pub fn push_and_drain(&mut self, fresh: &[Record], drain: usize) -> Result<Vec<Record>> {
        let nfresh = fresh.len().min(self.max);
        let ndrain = drain.min(self.max);
        let rec = std::mem::size_of::<Record>();
        unsafe {
            std::ptr::copy_nonoverlapping(fresh.as_ptr(), self.pinned_fresh, nfresh);
            sys::cuMemcpyHtoDAsync_v2(self.d_fresh, self.pinned_fresh.cast(), nfresh * rec, self.stream).result()?;
        }
        let slots = self.ring.slots();
        let mut ring = self.ring.base;
        let mut view = self.ring.base + self.ring.size as u64;
        let (mut fr, mut out) = (self.d_fresh, self.d_batch);
        let (mut nf, mut head, mut tail, mut nd, mut sl) = (nfresh as u32, self.ring.head, self.ring.tail, ndrain as u32, slots);
        let mut params: [*mut c_void; 9] = [
            (&mut ring as *mut u64).cast(),
            (&mut view as *mut u64).cast(),
            (&mut fr as *mut u64).cast(),
            (&mut nf as *mut u32).cast(),
            (&mut head as *mut u32).cast(),
            (&mut tail as *mut u32).cast(),
            (&mut nd as *mut u32).cast(),
            (&mut sl as *mut u32).cast(),
            (&mut out as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.kernel, 1, 1, 1, 512, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()) // EXPECT: unfenced_vmm_alias
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.pinned_batch.cast(), self.d_batch, ndrain * rec, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        self.ring.head = (self.ring.head + nfresh as u32) % slots;
        self.ring.tail = (self.ring.tail + ndrain as u32) % slots;
        Ok(unsafe { std::slice::from_raw_parts(self.pinned_batch, ndrain) }.to_vec())
    }
}

impl Drop for TelemetrySink {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.ring.base, self.ring.size);
            let _ = sys::cuMemUnmap(self.ring.base + self.ring.size as u64, self.ring.size);
            let _ = sys::cuMemRelease(self.ring.handle);
            let _ = sys::cuMemAddressFree(self.ring.base, 2 * self.ring.size);
            let _ = sys::cuMemFree_v2(self.d_fresh);
            let _ = sys::cuMemFree_v2(self.d_batch);
            let _ = sys::cuMemFreeHost(self.pinned_fresh.cast());
            let _ = sys::cuMemFreeHost(self.pinned_batch.cast());
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
