//! case: request handler takes its scratch from the stream-ordered allocator (cuMemAllocAsync), returns one buffer with cuMemFreeAsync on the same stream after the kernel, reads the pinned result after synchronizing, then frees the other buffer with plain cuMemFree
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const TOPK_SRC: &str = r#"
extern "C" __global__ void bucket_scores(const float* scores, unsigned int* buckets, unsigned int n) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned int b = (unsigned int)(fminf(fmaxf(scores[i], 0.f), 0.999f) * 64.f);
    atomicAdd(&buckets[b], 1u);
}
"#;

pub struct Handler {
    stream: sys::CUstream,
    bucket: sys::CUfunction,
    h_buckets: *mut u32,
}

impl Handler {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(TOPK_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let bucket = unsafe { drv::module::get_function(module, CString::new("bucket_scores")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let mut h: *mut c_void = std::ptr::null_mut();
        unsafe { sys::cuMemAllocHost_v2(&mut h, 64 * 4) }.result()?;
        Ok(Handler { stream, bucket, h_buckets: h.cast() })
    }

    /// Histogram of `scores` (already on the device, `n` floats) in 64 buckets.
    pub fn handle(&self, scores: sys::CUdeviceptr, n: u32) -> Res<[u32; 64]> {
        let mut d_buckets = 0;
        let mut d_tmp = 0;
        unsafe {
            sys::cuMemAllocAsync(&mut d_buckets, 64 * 4, self.stream).result()?;
            sys::cuMemAllocAsync(&mut d_tmp, n as usize * 4, self.stream).result()?;
            sys::cuMemsetD32Async(d_buckets, 0, 64, self.stream).result()?;
            sys::cuMemcpyDtoDAsync_v2(d_tmp, scores, n as usize * 4, self.stream).result()?;
        }
        let (mut s, mut b, mut nn) = (d_tmp, d_buckets, n);
        let mut params: [*mut c_void; 3] = [(&mut s as *mut u64).cast(), (&mut b as *mut u64).cast(), (&mut nn as *mut u32).cast()];
        unsafe {
            drv::launch_kernel(self.bucket, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            // Stream-ordered: released only once the kernel above is done with it.
            sys::cuMemFreeAsync(d_tmp, self.stream).result()?;
            sys::cuMemcpyDtoHAsync_v2(self.h_buckets.cast(), d_buckets, 64 * 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let mut out = [0u32; 64];
        out.copy_from_slice(unsafe { std::slice::from_raw_parts(self.h_buckets, 64) });
        unsafe { sys::cuMemFree_v2(d_buckets) }.result()?;
        Ok(out)
    }
}

impl Drop for Handler {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFreeHost(self.h_buckets.cast());
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
