//! case: storage ingest with two registered (cuMemHostRegister) staging buffers used alternately; before a buffer is refilled from the file the host waits on the event recorded after the copy that read it, and buffers are unregistered only after the stream drained
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::io::Read;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const CHUNK: usize = 8 << 20;

const HIST_SRC: &str = r#"
extern "C" __global__ void byte_histogram(const unsigned char* data, unsigned n, unsigned long long* hist) {
    __shared__ unsigned local[256];
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[data[i]], 1u);
    __syncthreads();
    for (unsigned b = threadIdx.x; b < 256; b += blockDim.x) atomicAdd(&hist[b], (unsigned long long)local[b]);
}
"#;

struct Staging {
    buf: Vec<u8>,
    copied: CUevent,
    registered: bool,
}

impl Staging {
    fn new() -> Result<Self> {
        let mut buf = vec![0u8; CHUNK];
        let mut copied = null_mut();
        unsafe {
            sys::cuMemHostRegister_v2(buf.as_mut_ptr().cast(), CHUNK, 0).result()?;
            sys::cuEventCreate(&mut copied, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        }
        Ok(Self { buf, copied, registered: true })
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        unsafe {
            // The event was recorded after the last copy from this buffer.
            let _ = sys::cuEventSynchronize(self.copied);
            if self.registered {
                let _ = sys::cuMemHostUnregister(self.buf.as_mut_ptr().cast());
            }
            let _ = sys::cuEventDestroy_v2(self.copied);
        }
    }
}

/// Byte histogram of everything `reader` yields, computed on the GPU chunk by chunk.
pub fn histogram<R: Read>(mut reader: R) -> Result<[u64; 256]> {
    let mut dev = 0;
    let mut ctx = null_mut();
    let (mut stream, mut module, mut kernel) = (null_mut(), null_mut(), null_mut());
    let ptx = cudarc::nvrtc::compile_ptx(HIST_SRC)?;
    let image = CString::new(ptx.to_src())?;
    let (mut d_chunks, mut d_hist): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut h_hist: *mut c_void = null_mut();
    unsafe {
        sys::cuInit(0).result()?;
        sys::cuDeviceGet(&mut dev, 0).result()?;
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
        sys::cuCtxSetCurrent(ctx).result()?;
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
        sys::cuModuleGetFunction(&mut kernel, module, c"byte_histogram".as_ptr()).result()?;
        sys::cuMemAlloc_v2(&mut d_chunks, 2 * CHUNK).result()?;
        sys::cuMemAlloc_v2(&mut d_hist, 256 * 8).result()?;
        sys::cuMemAllocHost_v2(&mut h_hist, 256 * 8).result()?;
        sys::cuMemsetD32Async(d_hist, 0, 512, stream).result()?;
    }
    let mut stages = [Staging::new()?, Staging::new()?];
    let mut turn = 0usize;
    loop {
        let st = &mut stages[turn];
        // Wait until the copy that last read this buffer is done, then refill it.
        unsafe { sys::cuEventSynchronize(st.copied).result()? };
        let mut filled = 0;
        while filled < CHUNK {
            let n = reader.read(&mut st.buf[filled..])?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        if filled == 0 {
            break;
        }
        let dst = d_chunks + (turn * CHUNK) as u64;
        let (mut data, mut hist, mut n) = (dst, d_hist, filled as u32);
        let mut params: [*mut c_void; 3] = [
            (&mut data as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut hist as *mut u64).cast(),
        ];
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(dst, st.buf.as_ptr().cast(), filled, stream).result()?;
            sys::cuEventRecord(st.copied, stream).result()?;
            sys::cuLaunchKernel(kernel, 120, 1, 1, 256, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
        }
        turn ^= 1;
    }
    let mut out = [0u64; 256];
    unsafe {
        sys::cuMemcpyDtoHAsync_v2(h_hist, d_hist, 256 * 8, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        out.copy_from_slice(std::slice::from_raw_parts(h_hist.cast::<u64>(), 256));
    }
    drop(stages);
    unsafe {
        sys::cuMemFreeHost(h_hist).result()?;
        sys::cuMemFree_v2(d_chunks).result()?;
        sys::cuMemFree_v2(d_hist).result()?;
        sys::cuModuleUnload(module).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(out)
}
