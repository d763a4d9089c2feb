//! case: GPU hash join whose hash table is allocated with `cuMemAllocAsync` on an allocator stream and handed to the work stream through an event; build and probe kernels run on the work stream and the table is freed with `cuMemFreeAsync` on that same work stream, so the free is ordered after both kernels
//! expect: none

use std::ptr;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const JOIN_SRC: &str = r#"
#define EMPTY 0xffffffffffffffffull
extern "C" __global__ void build(unsigned long long* table, const unsigned long long* keys, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned slot = (unsigned)(keys[i] * 0x9E3779B97F4A7C15ull % cap);
    while (atomicCAS(&table[slot], EMPTY, keys[i]) != EMPTY) slot = (slot + 1) % cap;
}
extern "C" __global__ void probe(const unsigned long long* table, const unsigned long long* keys, unsigned* hit, unsigned n, unsigned cap) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned slot = (unsigned)(keys[i] * 0x9E3779B97F4A7C15ull % cap);
    unsigned found = 0;
    for (unsigned step = 0; step < cap; ++step) {
        unsigned long long k = table[slot];
        if (k == keys[i]) { found = 1; break; }
        if (k == EMPTY) break;
        slot = (slot + 1) % cap;
    }
    hit[i] = found;
}
"#;

pub struct HashJoin {
    alloc_stream: Arc<CudaStream>,
    work: Arc<CudaStream>,
    build: CudaFunction,
    probe: CudaFunction,
    table_ready: CUevent,
}

impl HashJoin {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(JOIN_SRC)?)?;
        let mut table_ready: CUevent = ptr::null_mut();
        unsafe { sys::cuEventCreate(&mut table_ready, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()? };
        Ok(Self {
            alloc_stream: ctx.new_stream()?,
            work: ctx.new_stream()?,
            build: module.load_function("build")?,
            probe: module.load_function("probe")?,
            table_ready,
        })
    }

    /// Semi-join: `hits[i] = 1` when `probe_keys[i]` occurs in `build_keys`.
    pub fn semi_join(&self, build_keys: &CudaSlice<u64>, probe_keys: &CudaSlice<u64>, hits: &mut CudaSlice<u32>) -> Result<(), DriverError> {
        let cap = (build_keys.len() * 2).next_power_of_two() as u32;
        let bytes = cap as usize * 8;
        let mut table: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAllocAsync(&mut table, bytes, self.alloc_stream.cu_stream()).result()?;
            sys::cuMemsetD32Async(table, 0xffff_ffff, bytes / 4, self.alloc_stream.cu_stream()).result()?;
            sys::cuEventRecord(self.table_ready, self.alloc_stream.cu_stream()).result()?;
            sys::cuStreamWaitEvent(self.work.cu_stream(), self.table_ready, 0).result()?;
        }
        let (nb, np) = (build_keys.len() as u32, probe_keys.len() as u32);
        unsafe {
            self.work.launch_builder(&self.build).arg(&table).arg(build_keys).arg(&nb).arg(&cap).launch(LaunchConfig::for_num_elems(nb))?;
            self.work.launch_builder(&self.probe).arg(&table).arg(probe_keys).arg(&mut *hits).arg(&np).arg(&cap).launch(LaunchConfig::for_num_elems(np))?;
            sys::cuMemFreeAsync(table, self.work.cu_stream()).result()?;
        }
        Ok(())
    }
}

impl Drop for HashJoin {
    fn drop(&mut self) {
        let _ = self.work.synchronize();
        unsafe {
            let _ = sys::cuEventDestroy_v2(self.table_ready);
        }
    }
}
