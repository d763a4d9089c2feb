//! case: trading engine's audit log lives in managed memory allocated with CU_MEM_ATTACH_HOST, appended by the host while the pricing kernel runs; at flush it is attached to the flush stream for the summary kernel and given back to the host (attach host, synchronize) afterwards
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const SRC: &str = r#"
extern "C" __global__ void price_options(const float* spot, float* price, unsigned int n, float strike, float vol) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = spot[i];
    price[i] = fmaxf(s - strike, 0.f) + 0.4f * vol * s;
}
extern "C" __global__ void summarize_log(const unsigned long long* log, unsigned int n, unsigned long long* checksum) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicXor(checksum, log[i] * 0x9e3779b97f4a7c15ull);
}
"#;

pub struct AuditedPricer {
    compute: sys::CUstream,
    flush: sys::CUstream,
    price: sys::CUfunction,
    summarize: sys::CUfunction,
    log: sys::CUdeviceptr,
    log_cap: usize,
    log_len: usize,
    d_checksum: sys::CUdeviceptr,
}

impl AuditedPricer {
    pub fn new(log_cap: usize) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let price = unsafe { drv::module::get_function(module, CString::new("price_options")?) }?;
        let summarize = unsafe { drv::module::get_function(module, CString::new("summarize_log")?) }?;
        let compute = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let flush = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let mut log = 0;
        unsafe { sys::cuMemAllocManaged(&mut log, log_cap * 8, sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST as u32) }.result()?;
        let d_checksum = unsafe { drv::malloc_sync(8) }?;
        Ok(AuditedPricer { compute, flush, price, summarize, log, log_cap, log_len: 0, d_checksum })
    }

    pub fn price(&mut self, spot: sys::CUdeviceptr, out: sys::CUdeviceptr, n: u32, strike: f32, vol: f32, order_ids: &[u64]) -> Res<()> {
        let (mut s, mut o, mut nn, mut k, mut v) = (spot, out, n, strike, vol);
        let mut params: [*mut c_void; 5] = [
            (&mut s as *mut u64).cast(),
            (&mut o as *mut u64).cast(),
            (&mut nn as *mut u32).cast(),
            (&mut k as *mut f32).cast(),
            (&mut v as *mut f32).cast(),
        ];
        unsafe { drv::launch_kernel(self.price, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.compute, &mut params) }?;

        // Host-attached: appending never waits for the pricing kernel.
        let room = self.log_cap - self.log_len;
        let take = order_ids.len().min(room);
        let log = unsafe { std::slice::from_raw_parts_mut(self.log as *mut u64, self.log_cap) };
        log[self.log_len..self.log_len + take].copy_from_slice(&order_ids[..take]);
        self.log_len += take;
        Ok(())
    }

    pub fn flush(&mut self) -> Res<u64> {
        let mut checksum = [0u64; 1];
        unsafe {
            sys::cuStreamAttachMemAsync(self.flush, self.log, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE as u32).result()?;
            sys::cuMemsetD32Async(self.d_checksum, 0, 2, self.flush).result()?;
            let (mut l, mut n, mut c) = (self.log, self.log_len as u32, self.d_checksum);
            let mut params: [*mut c_void; 3] = [(&mut l as *mut u64).cast(), (&mut n as *mut u32).cast(), (&mut c as *mut u64).cast()];
            drv::launch_kernel(self.summarize, (n.max(1).div_ceil(256), 1, 1), (256, 1, 1), 0, self.flush, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(checksum.as_mut_ptr().cast(), self.d_checksum, 8, self.flush).result()?;
            sys::cuStreamAttachMemAsync(self.flush, self.log, 0, sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST as u32).result()?;
            sys::cuStreamSynchronize(self.flush).result()?;
        }
        self.log_len = 0;
        Ok(checksum[0])
    }
}

impl Drop for AuditedPricer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.compute);
            let _ = sys::cuStreamSynchronize(self.flush);
            let _ = sys::cuMemFree_v2(self.log);
            let _ = sys::cuMemFree_v2(self.d_checksum);
            let _ = drv::stream::destroy(self.compute);
            let _ = drv::stream::destroy(self.flush);
        }
    }
}
