//! case: mirrored byte ring for stream reassembly (one physical allocation mapped at base and base+cap, access granted over both); the reassembly kernel writes arriving bytes through the lower view and reads the wrapped record through the upper view, with fence.proxy.alias and a barrier between the two
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const REASSEMBLE_SRC: &str = r#"
extern "C" __global__ void reassemble(unsigned char* ring_lo, const unsigned char* ring_hi,
                                      const unsigned char* incoming, unsigned head, unsigned nin,
                                      unsigned tail, unsigned nout, unsigned cap,
                                      unsigned char* record) {
    // One block: append the new bytes ...
    for (unsigned i = threadIdx.x; i < nin; i += blockDim.x)
        ring_lo[(head + i) % cap] = incoming[i];
    // ... make them visible through the other virtual alias ...
    asm volatile("fence.proxy.alias;" ::: "memory");
    __syncthreads();
    asm volatile("fence.proxy.alias;" ::: "memory");
    // ... and copy out the (possibly wrapped) record contiguously.
    for (unsigned j = threadIdx.x; j < nout; j += blockDim.x)
        record[j] = (tail + j < cap) ? ring_lo[tail + j] : ring_hi[tail + j - cap];
}
"#;

pub struct MirroredRing {
    base: CUdeviceptr,
    cap: usize,
    handle: CUmemGenericAllocationHandle,
}

impl MirroredRing {
    /// `cap` must be a multiple of the allocation granularity.
    pub fn new(device: i32, cap: usize) -> Result<Self> {
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: device };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let access = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let mut handle = 0;
        let mut base = 0;
        unsafe {
            sys::cuMemCreate(&mut handle, cap, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * cap, 0, 0, 0).result()?;
            sys::cuMemMap(base, cap, 0, handle, 0).result()?;
            sys::cuMemMap(base + cap as u64, cap, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, 2 * cap, &access, 1).result()?;
        }
        Ok(Self { base, cap, handle })
    }

    pub fn lower(&self) -> CUdeviceptr {
        self.base
    }

    pub fn upper(&self) -> CUdeviceptr {
        self.base + self.cap as u64
    }
}

impl Drop for MirroredRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuCtxSynchronize();
            let _ = sys::cuMemUnmap(self.base, self.cap);
            let _ = sys::cuMemUnmap(self.base + self.cap as u64, self.cap);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.base, 2 * self.cap);
        }
    }
}

pub struct Reassembler {
    ring: MirroredRing,
    func: sys::CUfunction,
    module: sys::CUmodule,
    stream: sys::CUstream,
    head: u32,
    tail: u32,
    d_in: CUdeviceptr,
    d_record: CUdeviceptr,
    max_chunk: usize,
}

impl Reassembler {
    pub fn new(cap: usize, max_chunk: usize) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ring = MirroredRing::new(dev, cap)?;
        let ptx = cudarc::nvrtc::compile_ptx(REASSEMBLE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut func, mut stream) = (null_mut(), null_mut(), null_mut());
        let (mut d_in, mut d_record) = (0, 0);
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut func, module, c"reassemble".as_ptr()).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut d_in, max_chunk).result()?;
            sys::cuMemAlloc_v2(&mut d_record, max_chunk).result()?;
        }
        Ok(Self { ring, func, module, stream, head: 0, tail: 0, d_in, d_record, max_chunk })
    }

    /// Appends `nin` bytes already staged at `d_in` and extracts the next `record_len` bytes
    /// into `d_record`.
    pub fn step(&mut self, nin: u32, record_len: u32) -> Result<CUdeviceptr> {
        let cap = self.ring.cap as u32;
        let (mut lo, mut hi, mut inc, mut rec) = (self.ring.lower(), self.ring.upper(), self.d_in, self.d_record);
        let (mut head, mut n, mut tail, mut nout, mut c) = (self.head, nin, self.tail, record_len, cap);
        let mut params: [*mut c_void; 9] = [
            (&mut lo as *mut u64).cast(),
            (&mut hi as *mut u64).cast(),
            (&mut inc as *mut u64).cast(),
            (&mut head as *mut u32).cast(),
            (&mut n as *mut u32).cast(),
            (&mut tail as *mut u32).cast(),
            (&mut nout as *mut u32).cast(),
            (&mut c as *mut u32).cast(),
            (&mut rec as *mut u64).cast(),
        ];
        unsafe {
            sys::cuLaunchKernel(self.func, 1, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()?;
        }
        self.head = (self.head + nin) % cap;
        self.tail = (self.tail + record_len) % cap;
        Ok(self.d_record)
    }

    pub fn input_buffer(&self) -> (CUdeviceptr, usize, sys::CUstream) {
        (self.d_in, self.max_chunk, self.stream)
    }
}

impl Drop for Reassembler {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_in);
            let _ = sys::cuMemFree_v2(self.d_record);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn reassemble_fixed_records(chunks: &[u32], record: u32) -> Result<usize> {
    let mut r = Reassembler::new(2 << 20, 1 << 16)?;
    let (d_in, max, stream) = r.input_buffer();
    unsafe { sys::cuMemsetD8Async(d_in, 0x5a, max, stream).result()? };
    let mut records = 0;
    for &n in chunks {
        r.step(n.min(max as u32), record)?;
        records += 1;
    }
    Ok(records)
}
