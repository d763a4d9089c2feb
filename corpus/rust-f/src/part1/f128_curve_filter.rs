//! case: a colour-grading filter loads its PTX with `cuModuleLoadData`, looks up its `__device__` lookup table with `cuModuleGetGlobal` and fills it with a blocking copy; its `Drop` then frees the table's address with `cuMemFree` before unloading the module (a module global is not an allocation)
//! expect: mismatched_free=1

use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule, CUstream};
use cudarc::driver::{CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const GRADE_SRC: &str = r#"
__device__ float g_curve[256];

extern "C" __global__ void apply_curve(const unsigned char* in, float* out, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = g_curve[in[i]];
}
"#;

pub struct CurveFilter {
    ctx: Arc<CudaContext>,
    module: CUmodule,
    apply: CUfunction,
    curve: CUdeviceptr,
    curve_bytes: usize,
}

impl CurveFilter {
    pub fn new(ctx: &Arc<CudaContext>, gamma: f32) -> Result<Self, Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let ptx = CString::new(compile_ptx(GRADE_SRC)?.to_src())?;
        let mut module: CUmodule = null_mut();
        let mut apply: CUfunction = null_mut();
        let mut curve: CUdeviceptr = 0;
        let mut curve_bytes = 0usize;
        let table: Vec<f32> = (0..256).map(|v| (v as f32 / 255.0).powf(gamma)).collect();
        unsafe {
            sys::cuModuleLoadData(&mut module, ptx.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut apply, module, c"apply_curve".as_ptr()).result()?;
            sys::cuModuleGetGlobal_v2(&mut curve, &mut curve_bytes, module, c"g_curve".as_ptr()).result()?;
            sys::cuMemcpyHtoD_v2(curve, table.as_ptr().cast(), curve_bytes.min(4 * table.len())).result()?;
            // the blocking copy returns once the pageable table is staged; kernels go to
            // non-blocking streams, so wait for the DMA itself
            sys::cuCtxSynchronize().result()?;
        }
        Ok(Self { ctx: ctx.clone(), module, apply, curve, curve_bytes })
    }

    /// Grades `n` pixels of `d_in` into `d_out` on `stream`.
    pub fn apply(&self, d_in: CUdeviceptr, d_out: CUdeviceptr, n: u32, stream: CUstream) -> Result<(), DriverError> {
        let (mut a, mut b, mut n) = (d_in, d_out, n);
        let mut args = [
            (&mut a) as *mut CUdeviceptr as *mut c_void,
            (&mut b) as *mut CUdeviceptr as *mut c_void,
            (&mut n) as *mut u32 as *mut c_void,
        ];
        unsafe { sys::cuLaunchKernel(self.apply, n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()).result() }
    }
}

impl Drop for CurveFilter {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemFree_v2(self.curve); // EXPECT: mismatched_free
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let filter = CurveFilter::new(&ctx, 2.2)?;
    let n = 1920 * 1080usize;
    let mut stream: CUstream = null_mut();
    let (mut d_in, mut d_out): (CUdeviceptr, CUdeviceptr) = (0, 0);
    let mut h_in: *mut c_void = null_mut();
    let mut h_out: *mut c_void = null_mut();
    unsafe {
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAlloc_v2(&mut d_in, n).result()?;
        sys::cuMemAlloc_v2(&mut d_out, 4 * n).result()?;
        sys::cuMemAllocHost_v2(&mut h_in, n).result()?;
        sys::cuMemAllocHost_v2(&mut h_out, 4 * n).result()?;
        std::slice::from_raw_parts_mut(h_in as *mut u8, n).iter_mut().enumerate().for_each(|(i, p)| *p = (i % 256) as u8);
        sys::cuMemcpyHtoDAsync_v2(d_in, h_in, n, stream).result()?;
        filter.apply(d_in, d_out, n as u32, stream)?;
        sys::cuMemcpyDtoHAsync_v2(h_out, d_out, 4 * n, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        let graded = std::slice::from_raw_parts(h_out as *const f32, n);
        println!("graded[128] = {}", graded[128]);
        sys::cuMemFree_v2(d_in).result()?;
        sys::cuMemFree_v2(d_out).result()?;
        sys::cuMemFreeHost(h_in).result()?;
        sys::cuMemFreeHost(h_out).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    drop(filter);
    Ok(())
}
