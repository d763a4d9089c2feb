//! case: Pippenger-style MSM window pass for a toy additive group (runtime API via cudarc::runtime::result, driver-API launch on the runtime's stream): scalars and points staged in cudaMallocHost memory, buckets accumulated by a kernel, copied back into pinned memory and reduced on the host only after cudaStreamSynchronize
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::result as rt;
use cudarc::runtime::sys as rts;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// Modulus of the toy group (a 61-bit Mersenne prime).
const P: u64 = (1 << 61) - 1;

const MSM_SRC: &str = r#"
#define P61 ((1ull << 61) - 1)
__device__ __forceinline__ unsigned long long addmod(unsigned long long a, unsigned long long b) {
    unsigned long long s = a + b; return s >= P61 ? s - P61 : s;
}
extern "C" __global__ void bucket_accumulate(const unsigned long long* points, const unsigned* scalars,
                                             unsigned n, unsigned window, unsigned c,
                                             unsigned long long* buckets) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned digit = (scalars[i] >> (window * c)) & ((1u << c) - 1);
    if (digit == 0) return;
    unsigned long long* b = &buckets[digit];
    unsigned long long old = *b, assumed;
    do { assumed = old; old = atomicCAS(b, assumed, addmod(assumed, points[i])); } while (old != assumed);
}
"#;

struct PinnedVec<T> {
    ptr: *mut T,
    len: usize,
}

impl<T: Copy> PinnedVec<T> {
    fn new(len: usize) -> Result<Self> {
        let mut p: *mut c_void = null_mut();
        unsafe { rts::cudaMallocHost(&mut p, len * std::mem::size_of::<T>()).result()? };
        Ok(Self { ptr: p.cast(), len })
    }
    fn as_slice(&self) -> &[T] {
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
    fn as_mut_slice(&mut self) -> &mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl<T> Drop for PinnedVec<T> {
    fn drop(&mut self) {
        unsafe {
            let _ = rts::cudaFreeHost(self.ptr.cast());
        }
    }
}

pub struct MsmWindow {
    stream: rts::cudaStream_t,
    module: drv::CUmodule,
    kernel: drv::CUfunction,
    c: u32,
}

impl MsmWindow {
    pub fn new(c: u32) -> Result<Self> {
        cudarc::runtime::result::device::set(0)?;
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            drv::cuInit(0).result()?;
            drv::cuDeviceGet(&mut dev, 0).result()?;
            drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            drv::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(MSM_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut kernel) = (null_mut(), null_mut());
        unsafe {
            drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            drv::cuModuleGetFunction(&mut kernel, module, c"bucket_accumulate".as_ptr()).result()?;
        }
        let stream = rt::stream::create(rt::stream::StreamKind::NonBlocking)?;
        Ok(Self { stream, module, kernel, c })
    }

    /// sum_i digit_w(s_i) * P_i for window `w`, via buckets.
    pub fn window_sum(&self, points: &[u64], scalars: &[u32], window: u32) -> Result<u64> {
        let n = points.len();
        let nb = 1usize << self.c;
        let mut h_points = PinnedVec::<u64>::new(n)?;
        let mut h_scalars = PinnedVec::<u32>::new(n)?;
        let h_buckets = PinnedVec::<u64>::new(nb)?;
        h_points.as_mut_slice().copy_from_slice(points);
        h_scalars.as_mut_slice().copy_from_slice(scalars);
        let (d_points, d_scalars, d_buckets) = unsafe {
            (rt::malloc_sync(n * 8)?, rt::malloc_sync(n * 4)?, rt::malloc_sync(nb * 8)?)
        };
        unsafe {
            rt::memset_d8_async(d_buckets, 0, nb * 8, self.stream)?;
            rt::memcpy_htod_async(d_points, h_points.as_slice(), self.stream)?;
            rt::memcpy_htod_async(d_scalars, h_scalars.as_slice(), self.stream)?;
        }
        let (mut pp, mut sp, mut bp) = (d_points as u64, d_scalars as u64, d_buckets as u64);
        let (mut n32, mut w, mut c) = (n as u32, window, self.c);
        let mut params: [*mut c_void; 6] = [
            (&mut pp as *mut u64).cast(),
            (&mut sp as *mut u64).cast(),
            (&mut n32 as *mut u32).cast(),
            (&mut w as *mut u32).cast(),
            (&mut c as *mut u32).cast(),
            (&mut bp as *mut u64).cast(),
        ];
        unsafe {
            drv::cuLaunchKernel(self.kernel, n32.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream.cast(), params.as_mut_ptr(), null_mut())
                .result()?;
            rts::cudaMemcpyAsync(
                h_buckets.ptr.cast(),
                d_buckets,
                nb * 8,
                rts::cudaMemcpyKind::cudaMemcpyDeviceToHost,
                self.stream,
            )
            .result()?;
            rt::stream::synchronize(self.stream)?;
        }
        // Running-sum reduction: sum_b b * B_b.
        let (mut running, mut total) = (0u64, 0u64);
        for &b in h_buckets.as_slice()[1..].iter().rev() {
            running = (running + b) % P;
            total = (total + running) % P;
        }
        unsafe {
            rt::free_sync(d_points)?;
            rt::free_sync(d_scalars)?;
            rt::free_sync(d_buckets)?;
        }
        Ok(total)
    }
}

impl Drop for MsmWindow {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::stream::synchronize(self.stream);
            let _ = rt::stream::destroy(self.stream);
            let _ = drv::cuModuleUnload(self.module);
        }
    }
}

pub fn msm(points: &[u64], scalars: &[u32]) -> Result<u64> {
    let c = 8;
    let pass = MsmWindow::new(c)?;
    let mut acc = 0u64;
    for w in (0..32 / c).rev() {
        for _ in 0..c {
            acc = (acc * 2) % P;
        }
        acc = (acc + pass.window_sum(points, scalars, w)?) % P;
    }
    Ok(acc)
}
