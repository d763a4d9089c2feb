//! case: per-class counters live in mapped pinned memory (`cuMemHostAlloc` with DEVICEMAP, no write-combining); the struct keeps the host pointer for the CPU and the `cuMemHostGetDevicePointer` address for kernels, the kernel gets only the device address, and the host reads through the host pointer after synchronizing the stream
//! expect: none

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const COUNT_SRC: &str = r#"
extern "C" __global__ void count_labels(const int* labels, unsigned int n, unsigned int* counts, int n_classes) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int c = labels[i];
        if (c >= 0 && c < n_classes) atomicAdd_system(&counts[c], 1u);
    }
}
"#;

/// Host-visible counters that kernels update in place.
pub struct ZeroCopyCounters {
    host: *mut u32,
    dev: CUdeviceptr,
    len: usize,
}

impl ZeroCopyCounters {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut host: *mut c_void = std::ptr::null_mut();
        let mut dev: CUdeviceptr = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, len * 4, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut dev, host, 0).result()?;
            std::ptr::write_bytes(host as *mut u32, 0, len);
        }
        Ok(Self { host: host as *mut u32, dev, len })
    }

    /// Only valid once the kernels that update the counters have finished.
    pub fn host_view(&self) -> &[u32] {
        unsafe { std::slice::from_raw_parts(self.host, self.len) }
    }
}

impl Drop for ZeroCopyCounters {
    fn drop(&mut self) {
        unsafe { sys::cuMemFreeHost(self.host as *mut c_void) };
    }
}

pub struct LabelStats {
    stream: Arc<CudaStream>,
    count: CudaFunction,
    counters: ZeroCopyCounters,
}

impl LabelStats {
    pub fn new(ctx: &Arc<CudaContext>, n_classes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        Ok(Self {
            stream: ctx.new_stream()?,
            count: ctx.load_module(compile_ptx(COUNT_SRC)?)?.load_function("count_labels")?,
            counters: ZeroCopyCounters::new(n_classes)?,
        })
    }

    pub fn histogram(&mut self, labels: &CudaSlice<i32>) -> Result<Vec<(usize, u32)>, DriverError> {
        let n = labels.len() as u32;
        let classes = self.counters.len as i32;
        let counts_dev = self.counters.dev;
        let mut launch = self.stream.launch_builder(&self.count);
        launch.arg(labels).arg(&n).arg(&counts_dev).arg(&classes);
        unsafe { launch.launch(LaunchConfig::for_num_elems(n)) }?;
        self.stream.synchronize()?;

        let mut top: Vec<(usize, u32)> = self.counters.host_view().iter().copied().enumerate().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1));
        Ok(top)
    }
}
