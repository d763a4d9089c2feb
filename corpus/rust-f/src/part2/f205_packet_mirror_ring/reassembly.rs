use super::Res;
use super::ring::MirroredRing;
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

/// Appends one packet at `head` through the low view, then checksums the record as one span:
/// the part past the end of the low view is read through the high view. One block.
const APPEND_SRC: &str = r#"
extern "C" __global__ void append_record(unsigned char* ring, const unsigned char* mirror,
                                         const unsigned char* pkt, unsigned int len,
                                         unsigned int head, unsigned int size,
                                         unsigned int* crc_out) {
    for (unsigned int i = threadIdx.x; i < len; i += blockDim.x)
        ring[(head + i) % size] = pkt[i];
    __syncthreads();
    __shared__ unsigned int acc;
    if (threadIdx.x == 0) acc = 0;
    __syncthreads();
    unsigned int local = 0;
    for (unsigned int i = threadIdx.x; i < len; i += blockDim.x) {
        unsigned int pos = head + i;
        unsigned char b = pos < size ? ring[pos] : mirror[pos - size];
        local += (unsigned int)b * (i + 1);
    }
    atomicAdd(&acc, local);
    __syncthreads();
    if (threadIdx.x == 0) *crc_out = acc;
}
"#;

pub struct Reassembler {
    stream: sys::CUstream,
    func: sys::CUfunction,
    head: usize,
    d_pkt: sys::CUdeviceptr,
    d_crc: sys::CUdeviceptr,
    h_pkt: *mut u8,
    h_crc: *mut u32,
}

const MAX_PKT: usize = 9216;

impl Reassembler {
    pub fn new(_ring: &MirroredRing) -> Res<Self> {
        let ptx = cudarc::nvrtc::compile_ptx(APPEND_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("append_record")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let d_pkt = unsafe { drv::malloc_sync(MAX_PKT) }?;
        let d_crc = unsafe { drv::malloc_sync(4) }?;
        let h_pkt = unsafe { drv::malloc_host(MAX_PKT, 0) }?.cast();
        let h_crc = unsafe { drv::malloc_host(4, 0) }?.cast();
        Ok(Reassembler { stream, func, head: 0, d_pkt, d_crc, h_pkt, h_crc })
    }

    pub fn push(&mut self, ring: &MirroredRing, pkt: &[u8]) -> Res<u32> {
        let len = pkt.len().min(MAX_PKT);
        unsafe { std::slice::from_raw_parts_mut(self.h_pkt, len) }.copy_from_slice(&pkt[..len]);
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.d_pkt, self.h_pkt.cast(), len, self.stream) }.result()?;

        let mut low = ring.base;
        // Address `size` bytes up: the same bytes, seen through the second mapping.
        let mut high = ring.base + ring.size as u64;
        let mut pktp = self.d_pkt;
        let mut n = len as u32;
        let mut head = self.head as u32;
        let mut size = ring.size as u32;
        let mut crc = self.d_crc;
        let mut params: [*mut c_void; 7] = [
            (&mut low as *mut u64).cast(),
            (&mut high as *mut u64).cast(),
            (&mut pktp as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut head as *mut u32).cast(),
            (&mut size as *mut u32).cast(),
            (&mut crc as *mut u64).cast(),
        ];
        unsafe { sys::cuLaunchKernel(self.func, 1, 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut()) }.result()?; // EXPECT: unfenced_vmm_alias
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.h_crc.cast(), self.d_crc, 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        self.head = (self.head + len) % ring.size;
        Ok(unsafe { *self.h_crc })
    }
}

impl Drop for Reassembler {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_pkt);
            let _ = sys::cuMemFree_v2(self.d_crc);
            let _ = sys::cuMemFreeHost(self.h_pkt.cast());
            let _ = sys::cuMemFreeHost(self.h_crc.cast());
        }
    }
}
