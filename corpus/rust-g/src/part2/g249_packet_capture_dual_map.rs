//! case: packet-capture ring whose one physical allocation is mapped twice in one reservation, read-write at base for the receive copies and read-only at base+size for the parser: the receive stream copies packets in through the lower mapping, the parser kernel on a second stream reads the headers through the upper one, with no event ordering the launch after the copies
//! expect: unfenced_vmm_alias=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemGenericAllocationHandle, CUstream};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const PARSE_SRC: &str = r#"
// Each packet: 2-byte big-endian length, then an IPv4 header. Count packets per protocol.
// `ring` is the parser's read-only view of the capture ring.
extern "C" __global__ void parse_packets(const unsigned char* ring, unsigned size,
                                         const unsigned* offsets, unsigned npkts, unsigned* proto_counts) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= npkts) return;
    unsigned char proto = ring[(offsets[p] + 2 + 9) % size];   // IPv4 protocol byte
    atomicAdd(&proto_counts[proto], 1u);
}
"#;

struct DualMapping {
    base: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

impl DualMapping {
    fn new(dev: i32, size: usize) -> Result<Self> {
        let location = sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev };
        let prop = sys::CUmemAllocationProp {
            type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
            requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
            location,
            win32HandleMetaData: null_mut(),
            allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
        };
        let rw = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
        let ro = sys::CUmemAccessDesc { location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READ };
        let (mut handle, mut base) = (0, 0);
        unsafe {
            sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
            sys::cuMemAddressReserve(&mut base, 2 * size, 0, 0, 0).result()?;
            sys::cuMemMap(base, size, 0, handle, 0).result()?;
            sys::cuMemMap(base + size as u64, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(base, size, &rw, 1).result()?;
            sys::cuMemSetAccess(base + size as u64, size, &ro, 1).result()?;
        }
        Ok(Self { base, size, handle })
    }
}

impl Drop for DualMapping {
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

pub struct CaptureRing {
    ring: DualMapping,
    rx: CUstream,
    parse: CUstream,
    module: sys::CUmodule,
    parser: sys::CUfunction,
    d_offsets: CUdeviceptr,
    d_counts: CUdeviceptr,
    h_offsets: *mut u32,
    h_counts: *mut u32,
    head: usize,
    max_pkts: usize,
}

impl CaptureRing {
    pub fn open(ring_bytes: usize, max_pkts: usize) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut rx, mut parse, mut module, mut parser) = (null_mut(), null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(PARSE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut d_offsets, mut d_counts) = (0, 0);
        let (mut h_offsets, mut h_counts): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut rx, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuStreamCreate(&mut parse, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut parser, module, c"parse_packets".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut d_offsets, max_pkts * 4).result()?;
            sys::cuMemAlloc_v2(&mut d_counts, 256 * 4).result()?;
            sys::cuMemAllocHost_v2(&mut h_offsets, max_pkts * 4).result()?;
            sys::cuMemAllocHost_v2(&mut h_counts, 256 * 4).result()?;
        }
        Ok(Self {
            ring: DualMapping::new(dev, ring_bytes)?, rx, parse, module, parser, d_offsets, d_counts,
            h_offsets: h_offsets.cast(), h_counts: h_counts.cast(), head: 0, max_pkts,
        })
    }

    /// Ingests one burst (packets back to back in pinned memory) and returns protocol counts.
    pub fn burst(&mut self, pkts_pinned: *const u8, lens: &[usize]) -> Result<[u32; 256]> {
        let size = self.ring.size;
        let npkts = lens.len().min(self.max_pkts);
        let mut src_off = 0usize;
        let offsets = unsafe { std::slice::from_raw_parts_mut(self.h_offsets, npkts) };
        for (k, &len) in lens.iter().take(npkts).enumerate() {
            offsets[k] = self.head as u32;
            // Split at the end of the lower mapping.
            let first = len.min(size - self.head);
            unsafe {
                sys::cuMemcpyHtoDAsync_v2(self.ring.base + self.head as u64, pkts_pinned.add(src_off).cast(), first, self.rx).result()?;
                if first < len {
                    sys::cuMemcpyHtoDAsync_v2(self.ring.base, pkts_pinned.add(src_off + first).cast(), len - first, self.rx).result()?;
                }
            }
            src_off += len;
            self.head = (self.head + len) % size;
        }
        let (mut view, mut offs, mut counts) = (self.ring.base + self.ring.size as u64, self.d_offsets, self.d_counts);
        let (mut sz, mut np) = (size as u32, npkts as u32);
        let mut params: [*mut c_void; 5] = [
            (&mut view as *mut u64).cast(),
            (&mut sz as *mut u32).cast(),
            (&mut offs as *mut u64).cast(),
            (&mut np as *mut u32).cast(),
            (&mut counts as *mut u64).cast(),
        ];
        unsafe {
            sys::cuMemsetD32Async(self.d_counts, 0, 256, self.parse).result()?;
            sys::cuMemcpyHtoDAsync_v2(self.d_offsets, self.h_offsets.cast(), npkts * 4, self.parse).result()?;
            sys::cuLaunchKernel(self.parser, np.div_ceil(128).max(1), 1, 1, 128, 1, 1, 0, self.parse, params.as_mut_ptr(), null_mut()) // EXPECT: unfenced_vmm_alias
                .result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_counts.cast(), self.d_counts, 256 * 4, self.parse).result()?;
            sys::cuStreamSynchronize(self.parse).result()?;
            sys::cuStreamSynchronize(self.rx).result()?;
        }
        let mut out = [0u32; 256];
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(self.h_counts, 256) });
        Ok(out)
    }
}

impl Drop for CaptureRing {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.rx);
            let _ = sys::cuStreamSynchronize(self.parse);
            let _ = sys::cuMemFree_v2(self.d_offsets);
            let _ = sys::cuMemFree_v2(self.d_counts);
            let _ = sys::cuMemFreeHost(self.h_offsets.cast());
            let _ = sys::cuMemFreeHost(self.h_counts.cast());
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.rx);
            let _ = sys::cuStreamDestroy_v2(self.parse);
        }
    }
}
