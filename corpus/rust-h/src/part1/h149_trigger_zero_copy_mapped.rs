//! case: particle-detector trigger that writes accepted event ids into mapped pinned memory (`cuMemHostAlloc` with `CU_MEMHOSTALLOC_DEVICEMAP`, no write-combining) through the device pointer from `cuMemHostGetDevicePointer`; the host reads the results through its host pointer after `cuStreamSynchronize` and frees with `cuMemFreeHost`
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const TRIGGER_SRC: &str = r#"
extern "C" __global__ void level1_trigger(const float* energies, int n_events, int hits_per_event, float threshold,
                                          unsigned int* accepted, unsigned int* n_accepted, int capacity) {
    int ev = blockIdx.x * blockDim.x + threadIdx.x;
    if (ev >= n_events) return;
    float sum = 0.f;
    for (int h = 0; h < hits_per_event; ++h) sum += energies[ev * hits_per_event + h];
    if (sum > threshold) {
        unsigned int slot = atomicAdd(n_accepted, 1u);
        if (slot < capacity) accepted[slot] = ev;
    }
}
"#;

/// Results written by the GPU straight into host memory (zero-copy).
pub struct MappedResults {
    host: *mut u32,
    device: sys::CUdeviceptr,
    capacity: usize,
}

impl MappedResults {
    pub fn new(capacity: usize) -> Result<Self, DriverError> {
        let mut host: *mut c_void = null_mut();
        let mut device: sys::CUdeviceptr = 0;
        unsafe {
            sys::cuMemHostAlloc(&mut host, (capacity + 1) * 4, sys::CU_MEMHOSTALLOC_DEVICEMAP).result()?;
            sys::cuMemHostGetDevicePointer_v2(&mut device, host, 0).result()?;
            std::ptr::write_bytes(host as *mut u32, 0, capacity + 1);
        }
        Ok(Self { host: host as *mut u32, device, capacity })
    }

    fn count_ptr(&self) -> sys::CUdeviceptr {
        self.device + (self.capacity * 4) as u64
    }

    /// # Safety
    /// The kernel writing the results must have completed.
    unsafe fn accepted(&self) -> &[u32] {
        unsafe {
            let n = (*self.host.add(self.capacity) as usize).min(self.capacity);
            std::slice::from_raw_parts(self.host, n)
        }
    }
}

impl Drop for MappedResults {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFreeHost(self.host as *mut c_void);
        }
    }
}

pub fn run_trigger(ctx: &Arc<CudaContext>, energies: &CudaSlice<f32>, hits_per_event: usize, threshold: f32) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let stream = energies.stream().clone();
    let kernel = ctx.load_module(compile_ptx(TRIGGER_SRC)?)?.load_function("level1_trigger")?;
    let n_events = energies.len() / hits_per_event;
    let results = MappedResults::new(n_events.min(1 << 16))?;

    let (ne, hpe, cap) = (n_events as i32, hits_per_event as i32, results.capacity as i32);
    let (accepted_dev, count_dev) = (results.device, results.count_ptr());
    let mut launch = stream.launch_builder(&kernel);
    launch.arg(energies).arg(&ne).arg(&hpe).arg(&threshold).arg(&accepted_dev).arg(&count_dev).arg(&cap);
    unsafe { launch.launch(LaunchConfig::for_num_elems(n_events as u32)) }?;
    unsafe { sys::cuStreamSynchronize(stream.cu_stream()).result()? };

    let mut ids = unsafe { results.accepted() }.to_vec();
    ids.sort_unstable();
    Ok(ids)
}
