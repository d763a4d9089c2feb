//! case: telemetry aggregator uses zero-copy mapped pinned memory (cuMemHostAlloc with DEVICEMAP, no write-combining): the kernel writes counters through the device alias from cuMemHostGetDevicePointer and the host reads them through the host pointer after synchronizing
//! expect: none
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};
use std::sync::LazyLock;

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

static COUNTER_NAMES: LazyLock<Vec<String>> = LazyLock::new(|| {
    ["rx_packets", "rx_bytes", "drops", "retransmits", "rtt_sum_us", "rtt_max_us", "flows", "resets"]
        .iter()
        .map(|s| s.to_string())
        .collect()
});

const AGG_SRC: &str = r#"
struct Rec { unsigned int bytes, flags, rtt_us, flow; };
extern "C" __global__ void aggregate(const Rec* recs, unsigned int n, unsigned long long* counters) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Rec r = recs[i];
    atomicAdd(&counters[0], 1ull);
    atomicAdd(&counters[1], (unsigned long long)r.bytes);
    if (r.flags & 1u) atomicAdd(&counters[2], 1ull);
    if (r.flags & 2u) atomicAdd(&counters[3], 1ull);
    atomicAdd(&counters[4], (unsigned long long)r.rtt_us);
    atomicMax(&counters[5], (unsigned long long)r.rtt_us);
    if (r.flags & 4u) atomicAdd(&counters[6], 1ull);
    if (r.flags & 8u) atomicAdd(&counters[7], 1ull);
}
"#;

pub struct Aggregator {
    stream: sys::CUstream,
    func: sys::CUfunction,
    host_counters: *mut u64,
    dev_counters: sys::CUdeviceptr,
}

impl Aggregator {
    pub fn new() -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let image = CString::new(cudarc::nvrtc::compile_ptx(AGG_SRC)?.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("aggregate")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let mut host: *mut c_void = std::ptr::null_mut();
        let mut dev = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, 8 * 8, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0).result()?;
            std::ptr::write_bytes(host.cast::<u64>(), 0, 8);
        }
        Ok(Aggregator { stream, func, host_counters: host.cast(), dev_counters: dev })
    }

    /// Folds a device batch of `n` records into the counters and returns a snapshot.
    pub fn fold(&mut self, recs: sys::CUdeviceptr, n: u32) -> Res<Vec<(String, u64)>> {
        let (mut r, mut nn, mut c) = (recs, n, self.dev_counters);
        let mut params: [*mut c_void; 3] = [(&mut r as *mut u64).cast(), (&mut nn as *mut u32).cast(), (&mut c as *mut u64).cast()];
        unsafe {
            drv::launch_kernel(self.func, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, self.stream, &mut params)?;
            drv::stream::synchronize(self.stream)?;
        }
        let counters = unsafe { std::slice::from_raw_parts(self.host_counters, 8) };
        Ok(COUNTER_NAMES.iter().cloned().zip(counters.iter().copied()).collect())
    }
}

impl Drop for Aggregator {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::free_host(self.host_counters.cast());
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
