//! case: storage ingest: 4 MiB blocks read from a file into one Vec page-locked in place with cuMemHostRegister, copied to the device with cuMemcpyHtoDAsync and checksummed by a kernel; the next file read refills the registered buffer while the previous block's copy may still be reading it (registered memory is pinned, so the copy does not stage it)
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_void, CString};
use std::fs::File;
use std::io::Read;
use std::path::Path;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const BLOCK: usize = 4 << 20;
const PAGE: usize = 4096;

const CRC_SRC: &str = r#"
// CRC-32C of one 4 KiB page per thread block, bitwise, one byte lane per thread then combined.
__device__ unsigned crc32c_byte(unsigned crc, unsigned char b) {
    crc ^= b;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82f63b78u & (0u - (crc & 1u)));
    return crc;
}
extern "C" __global__ void page_crc(const unsigned char* block, unsigned* crcs, unsigned pages) {
    unsigned page = blockIdx.x;
    if (page >= pages || threadIdx.x != 0) return;
    const unsigned char* p = block + (size_t)page * 4096;
    unsigned crc = 0xffffffffu;
    for (int i = 0; i < 4096; ++i) crc = crc32c_byte(crc, p[i]);
    crcs[page] = ~crc;
}
"#;

struct Gpu {
    stream: sys::CUstream,
    module: sys::CUmodule,
    crc: sys::CUfunction,
}

fn gpu() -> Result<Gpu> {
    let mut dev = 0;
    let mut ctx = null_mut();
    let (mut stream, mut module, mut crc) = (null_mut(), null_mut(), null_mut());
    let ptx = cudarc::nvrtc::compile_ptx(CRC_SRC)?;
    let image = CString::new(ptx.to_src())?;
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut crc, module, c"page_crc".as_ptr()).result()?;
    }
    Ok(Gpu { stream, module, crc })
}

/// A block-sized Vec page-locked in place for as long as it lives.
struct RegisteredBlock {
    buf: Vec<u8>,
    stream: sys::CUstream,
}

impl RegisteredBlock {
    fn new(stream: sys::CUstream) -> Result<Self> {
        let mut buf = vec![0u8; BLOCK];
        unsafe {
            sys::cuMemHostRegister_v2(buf.as_mut_ptr().cast(), BLOCK, sys::CU_MEMHOSTREGISTER_PORTABLE).result()?;
        }
        Ok(Self { buf, stream })
    }
}

impl Drop for RegisteredBlock {
    fn drop(&mut self) {
        unsafe {
            // Copies out of the buffer must be done before it is unpinned and freed.
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemHostUnregister(self.buf.as_mut_ptr().cast());
        }
    }
}

/// Reads `nblocks` blocks of `path` into device memory; returns the device copy and the
/// per-page CRCs.
pub fn ingest(path: &Path, nblocks: usize) -> Result<(CUdeviceptr, Vec<u32>)> {
    let g = gpu()?;
    let pages = BLOCK / PAGE;
    let mut file = File::open(path)?;
    let (mut d_data, mut d_crcs) = (0, 0);
    let mut h_crcs: *mut c_void = null_mut();
    unsafe {
        sys::cuMemAlloc_v2(&mut d_data, nblocks * BLOCK).result()?;
        sys::cuMemAlloc_v2(&mut d_crcs, nblocks * pages * 4).result()?;
        sys::cuMemAllocHost_v2(&mut h_crcs, nblocks * pages * 4).result()?;
    }

    let mut staging = RegisteredBlock::new(g.stream)?;
    for i in 0..nblocks {
        file.read_exact(&mut staging.buf)?; // EXPECT: missing_sync
        let dst = d_data + (i * BLOCK) as u64;
        let mut block = dst;
        let mut crcs = d_crcs + (i * pages * 4) as u64;
        let mut np = pages as u32;
        let mut params: [*mut c_void; 3] = [
            (&mut block as *mut u64).cast(),
            (&mut crcs as *mut u64).cast(),
            (&mut np as *mut u32).cast(),
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, staging.buf.as_ptr().cast(), BLOCK, g.stream).result()?;
            sys::cuLaunchKernel(g.crc, np, 1, 1, 32, 1, 1, 0, g.stream, params.as_mut_ptr(), null_mut()).result()?;
        }
    }
    let crcs = unsafe {
        sys::cuMemcpyDtoHAsync_v2(h_crcs, d_crcs, nblocks * pages * 4, g.stream).result()?;
        sys::cuStreamSynchronize(g.stream).result()?;
        drop(staging);
        let v = std::slice::from_raw_parts(h_crcs.cast::<u32>(), nblocks * pages).to_vec();
        sys::cuMemFreeHost(h_crcs).result()?;
        sys::cuMemFree_v2(d_crcs).result()?;
        sys::cuModuleUnload(g.module).result()?;
        sys::cuStreamDestroy_v2(g.stream).result()?;
        v
    };
    Ok((d_data, crcs))
}
