//! case: a statistics buffer is cuMemAlloc'd and read back with cuMemcpyDtoH while nothing ever wrote it (the kernel that filled it was removed)
//! expect: uninitialized_device_read=1

use cudarc::driver::sys;
use cudarc::driver::CudaContext;
use std::ffi::c_void;
use std::mem::size_of;

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct Stats {
    pub min: f32,
    pub max: f32,
    pub sum: f64,
    pub count: u64,
}

pub fn read_stats() -> Stats {
    let ctx = CudaContext::new(0).expect("device 0");
    ctx.bind_to_thread().expect("bind");
    let mut d_stats: sys::CUdeviceptr = 0;
    let mut stats = Stats::default();
    unsafe {
        sys::cuMemAlloc_v2(&mut d_stats, size_of::<Stats>()).result().expect("cuMemAlloc");
        sys::cuMemcpyDtoH_v2(&mut stats as *mut Stats as *mut c_void, d_stats, size_of::<Stats>()).result().expect("cuMemcpyDtoH"); // EXPECT: uninitialized_device_read
        sys::cuMemFree_v2(d_stats).result().expect("cuMemFree");
    }
    stats
}
