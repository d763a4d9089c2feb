//! case: GPU hash join over two u32 key columns (runtime API allocations, driver-API launches of NVRTC kernels): build inserts with atomicCAS, probe appends matches and counts them with atomicAdd into a cudaMalloc'd counter, which the host then dereferences directly after synchronizing
//! expect: host_deref_device_ptr=1

mod build;
mod probe;

use std::error::Error;
use std::ffi::CString;
use std::ptr::null_mut;

use cudarc::driver::sys as drv;
use cudarc::runtime::sys as rt;

pub use build::BuildSide;
pub use probe::{JoinResult, PinnedKeys};

pub type Result<T> = std::result::Result<T, Box<dyn Error>>;

pub const JOIN_SRC: &str = r#"
#define EMPTY_KEY 0xffffffffu
__device__ __forceinline__ unsigned hash32(unsigned k) {
    k ^= k >> 16; k *= 0x85ebca6bu; k ^= k >> 13; k *= 0xc2b2ae35u; k ^= k >> 16; return k;
}

extern "C" __global__ void build_table(const unsigned* keys, const unsigned* payload, unsigned n,
                                       unsigned* table_keys, unsigned* table_vals, unsigned cap_mask) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = keys[i];
    unsigned slot = hash32(k) & cap_mask;
    while (true) {
        unsigned prev = atomicCAS(&table_keys[slot], EMPTY_KEY, k);
        if (prev == EMPTY_KEY || prev == k) { table_vals[slot] = payload[i]; return; }
        slot = (slot + 1) & cap_mask;
    }
}

extern "C" __global__ void probe_table(const unsigned* probe_keys, unsigned n,
                                       const unsigned* table_keys, const unsigned* table_vals,
                                       unsigned cap_mask, uint2* out, unsigned* out_count) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned k = probe_keys[i];
    unsigned slot = hash32(k) & cap_mask;
    while (true) {
        unsigned tk = table_keys[slot];
        if (tk == EMPTY_KEY) return;
        if (tk == k) {
            unsigned pos = atomicAdd(out_count, 1u);
            out[pos] = make_uint2(i, table_vals[slot]);
            return;
        }
        slot = (slot + 1) & cap_mask;
    }
}
"#;

pub struct JoinKernels {
    pub module: drv::CUmodule,
    pub build: drv::CUfunction,
    pub probe: drv::CUfunction,
}

pub struct HashJoin {
    pub stream: rt::cudaStream_t,
    pub kernels: JoinKernels,
}

impl HashJoin {
    pub fn new(device: i32) -> Result<Self> {
        cudarc::runtime::result::device::set(device)?;
        // The runtime made the primary context current; the driver calls below use it.
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            drv::cuInit(0).result()?;
            drv::cuDeviceGet(&mut dev, device).result()?;
            drv::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            drv::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(JOIN_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let mut module = null_mut();
        let (mut build, mut probe) = (null_mut(), null_mut());
        let mut stream: rt::cudaStream_t = null_mut();
        unsafe {
            drv::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            drv::cuModuleGetFunction(&mut build, module, c"build_table".as_ptr()).result()?;
            drv::cuModuleGetFunction(&mut probe, module, c"probe_table".as_ptr()).result()?;
            rt::cudaStreamCreateWithFlags(&mut stream, rt::cudaStreamNonBlocking).result()?;
        }
        Ok(Self { stream, kernels: JoinKernels { module, build, probe } })
    }

    pub fn driver_stream(&self) -> drv::CUstream {
        self.stream.cast()
    }
}

impl Drop for HashJoin {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaStreamSynchronize(self.stream);
            let _ = rt::cudaStreamDestroy(self.stream);
            let _ = drv::cuModuleUnload(self.kernels.module);
        }
    }
}

/// `SELECT o.id, c.segment FROM orders o JOIN customers c ON o.cust = c.id`
pub fn join_orders_customers(cust_ids: &[u32], segments: &[u32], order_custs: &[u32]) -> Result<Vec<(u32, u32)>> {
    let join = HashJoin::new(0)?;
    let build = BuildSide::build(&join, cust_ids, segments)?;
    let keys = PinnedKeys::from_slice(order_custs)?;
    let result = probe::probe(&join, &build, &keys)?;
    Ok(result.pairs)
}
