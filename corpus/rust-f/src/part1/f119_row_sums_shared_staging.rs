//! case: the driver-API version of a shared staging area: two reservations map one `cuMemCreate` allocation; the upload stream fills and post-processes it through view A, records an event, and the compute stream waits on that event before reading through view B, which is the ordering the Programming Guide requires between operations on two proxies
//! expect: none

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUmemGenericAllocationHandle, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void bias_rows(float* a, unsigned int rows, unsigned int cols)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows * cols) a[i] += (float)(i / cols);
}

extern "C" __global__ void row_sums(const float* b, float* sums, unsigned int rows, unsigned int cols)
{
    unsigned int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float s = 0.0f;
    for (unsigned int c = 0; c < cols; ++c) s += b[r * cols + c];
    sums[r] = s;
}
"#;

struct Views {
    a: CUdeviceptr,
    b: CUdeviceptr,
    size: usize,
    handle: CUmemGenericAllocationHandle,
}

unsafe fn map_twice(ordinal: i32, bytes: usize) -> Result<Views, DriverError> {
    unsafe {
        let mut prop: sys::CUmemAllocationProp = MaybeUninit::zeroed().assume_init();
        prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
        prop.location.id = ordinal;
        let mut gran = 0usize;
        sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)
            .result()?;
        let size = bytes.div_ceil(gran) * gran;
        let mut handle: CUmemGenericAllocationHandle = 0;
        sys::cuMemCreate(&mut handle, size, &prop, 0).result()?;
        let access = sys::CUmemAccessDesc {
            location: prop.location,
            flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
        };
        let (mut a, mut b): (CUdeviceptr, CUdeviceptr) = (0, 0);
        for va in [&mut a, &mut b] {
            sys::cuMemAddressReserve(va, size, 0, 0, 0).result()?;
            sys::cuMemMap(*va, size, 0, handle, 0).result()?;
            sys::cuMemSetAccess(*va, size, &access, 1).result()?;
        }
        Ok(Views { a, b, size, handle })
    }
}

unsafe fn launch(f: &CudaFunction, blocks: u32, stream: CUstream, args: &mut [*mut c_void]) -> Result<(), DriverError> {
    unsafe { sys::cuLaunchKernel(f.cu_function(), blocks, 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()).result() }
}

pub fn row_sums_via_alias(rows: u32, cols: u32) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx: Arc<CudaContext> = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(SRC)?)?;
    let (bias, sums_k) = (module.load_function("bias_rows")?, module.load_function("row_sums")?);
    let n = (rows * cols) as usize;
    let mut out = vec![0.0f32; rows as usize];
    unsafe {
        let views = map_twice(ctx.ordinal() as i32, n * 4)?;
        let (mut upload, mut compute): (CUstream, CUstream) = (null_mut(), null_mut());
        let mut ready: CUevent = null_mut();
        let mut d_sums: CUdeviceptr = 0;
        sys::cuStreamCreate(&mut upload, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuStreamCreate(&mut compute, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuEventCreate(&mut ready, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        sys::cuMemAlloc_v2(&mut d_sums, 4 * rows as usize).result()?;

        // upload stream: fill and bias through view A
        sys::cuMemsetD32Async(views.a, 1.0f32.to_bits(), n, upload).result()?;
        let (mut a, mut r, mut c) = (views.a, rows, cols);
        let mut args = [(&mut a) as *mut _ as *mut c_void, (&mut r) as *mut _ as *mut c_void, (&mut c) as *mut _ as *mut c_void];
        launch(&bias, (n as u32).div_ceil(256), upload, &mut args)?;
        sys::cuEventRecord(ready, upload).result()?;

        // compute stream: read through view B once the upload stream's work is complete
        sys::cuStreamWaitEvent(compute, ready, 0).result()?;
        let (mut b, mut s) = (views.b, d_sums);
        let mut args = [
            (&mut b) as *mut _ as *mut c_void,
            (&mut s) as *mut _ as *mut c_void,
            (&mut r) as *mut _ as *mut c_void,
            (&mut c) as *mut _ as *mut c_void,
        ];
        launch(&sums_k, rows.div_ceil(256), compute, &mut args)?;
        sys::cuStreamSynchronize(compute).result()?;
        sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), d_sums, 4 * rows as usize).result()?;

        sys::cuStreamSynchronize(upload).result()?;
        sys::cuMemFree_v2(d_sums).result()?;
        for va in [views.a, views.b] {
            sys::cuMemUnmap(va, views.size).result()?;
            sys::cuMemAddressFree(va, views.size).result()?;
        }
        sys::cuMemRelease(views.handle).result()?;
        sys::cuEventDestroy_v2(ready).result()?;
        sys::cuStreamDestroy_v2(upload).result()?;
        sys::cuStreamDestroy_v2(compute).result()?;
    }
    Ok(out)
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let sums = row_sums_via_alias(1024, 1024)?;
    println!("row 0: {}, row 1023: {}", sums[0], sums[1023]);
    Ok(())
}
