//! case: an FFI wrapper over libcuda keeps event counters in cuMemAlloc memory; it logs the counters' device address as a number and reads their values with a blocking cuMemcpyDtoH into a stack array after synchronizing the kernel's stream, never through the pointer
//! expect: none

use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;
type CUmodule = *mut c_void;
type CUfunction = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    #[link_name = "cuMemAlloc_v2"]
    fn cuMemAlloc(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
    #[link_name = "cuMemFree_v2"]
    fn cuMemFree(dptr: CUdeviceptr) -> CUresult;
    fn cuMemsetD32Async(dptr: CUdeviceptr, value: u32, n: usize, stream: CUstream) -> CUresult;
    #[link_name = "cuMemcpyDtoH_v2"]
    fn cuMemcpyDtoH(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> CUresult;
    fn cuStreamCreate(stream: *mut CUstream, flags: u32) -> CUresult;
    fn cuStreamSynchronize(stream: CUstream) -> CUresult;
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> CUresult;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const i8) -> CUresult;
    fn cuLaunchKernel(f: CUfunction, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shmem: u32,
                      stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult;
}

const COUNT_SRC: &str = r#"
extern "C" __global__ void classify(const float* x, unsigned* counters, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float v = x[i];
    unsigned bucket = v != v ? 3u : (v < 0.0f ? 0u : (v == 0.0f ? 1u : 2u));
    atomicAdd(&counters[bucket], 1u);
}
"#;

fn ck(rc: CUresult, what: &str) -> Result<(), String> {
    if rc == 0 { Ok(()) } else { Err(format!("{what} failed: {rc}")) }
}

pub struct SignCounter {
    _ctx: Arc<CudaContext>,
    counters: CUdeviceptr,
    stream: CUstream,
    func: CUfunction,
}

impl SignCounter {
    pub fn new(ctx: Arc<CudaContext>) -> Result<Self, String> {
        ctx.bind_to_thread().map_err(|e| e.to_string())?;
        let ptx = compile_ptx(COUNT_SRC).map_err(|e| e.to_string())?;
        let image = CString::new(ptx.to_src()).map_err(|e| e.to_string())?;
        let (mut module, mut func, mut stream, mut counters) = (null_mut(), null_mut(), null_mut(), 0);
        unsafe {
            ck(cuModuleLoadData(&mut module, image.as_ptr() as *const c_void), "cuModuleLoadData")?;
            ck(cuModuleGetFunction(&mut func, module, c"classify".as_ptr()), "cuModuleGetFunction")?;
            ck(cuStreamCreate(&mut stream, 1), "cuStreamCreate")?;
            ck(cuMemAlloc(&mut counters, 4 * std::mem::size_of::<u32>()), "cuMemAlloc")?;
        }
        log::trace_addr("sign counters", counters);
        Ok(Self { _ctx: ctx, counters, stream, func })
    }

    /// Counts negative, zero, positive and NaN values of the device array `x`.
    pub fn count(&mut self, x: CUdeviceptr, n: u32) -> Result<[u32; 4], String> {
        let mut counters = self.counters;
        let mut x = x;
        let mut n_arg = n;
        let mut params = [
            &mut x as *mut CUdeviceptr as *mut c_void,
            &mut counters as *mut CUdeviceptr as *mut c_void,
            &mut n_arg as *mut u32 as *mut c_void,
        ];
        let mut host = [0u32; 4];
        unsafe {
            ck(cuMemsetD32Async(self.counters, 0, 4, self.stream), "cuMemsetD32Async")?;
            ck(cuLaunchKernel(self.func, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()), "cuLaunchKernel")?;
            ck(cuStreamSynchronize(self.stream), "cuStreamSynchronize")?;
            ck(cuMemcpyDtoH(host.as_mut_ptr() as *mut c_void, self.counters, std::mem::size_of_val(&host)), "cuMemcpyDtoH")?;
        }
        Ok(host)
    }
}

impl Drop for SignCounter {
    fn drop(&mut self) {
        unsafe {
            cuStreamSynchronize(self.stream);
            cuMemFree(self.counters);
        }
    }
}

mod log {
    /// Device addresses are only ever printed, never followed on the host.
    pub fn trace_addr(what: &str, addr: u64) {
        if std::env::var_os("SIGN_COUNTER_TRACE").is_some() {
            eprintln!("[trace] {what} at device address {addr:#014x}");
        }
    }
}
