//! case: a buffer table logs each device allocation's address and carves sub-buffers by pointer arithmetic; device addresses are only formatted as integers, offset and handed to the driver (memset, launch, copy), never read through on the host
//! expect: none

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const AXPY_SRC: &str = r#"
extern "C" __global__ void axpy(float a, const float* x, float* y, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}
"#;

#[derive(Debug, Clone, Copy)]
struct Entry {
    ptr: CUdeviceptr,
    bytes: usize,
}

pub struct BufferTable {
    ctx: Arc<CudaContext>,
    entries: BTreeMap<&'static str, Entry>,
}

impl BufferTable {
    pub fn new(ctx: &Arc<CudaContext>) -> Self {
        Self { ctx: ctx.clone(), entries: BTreeMap::new() }
    }

    pub fn alloc(&mut self, name: &'static str, bytes: usize) -> Result<CUdeviceptr, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        eprintln!("[buffers] {name:<8} at {ptr:#014x}, {bytes} bytes, ends {:#014x}", ptr + bytes as u64);
        self.entries.insert(name, Entry { ptr, bytes });
        Ok(ptr)
    }

    /// A view `offset` bytes into a named buffer.
    pub fn view(&self, name: &str, offset: usize) -> Option<CUdeviceptr> {
        self.entries.get(name).filter(|e| offset < e.bytes).map(|e| e.ptr + offset as u64)
    }

    pub fn dump(&self) {
        for (name, e) in &self.entries {
            eprintln!("{name}: [{:#x}, {:#x})", e.ptr, e.ptr + e.bytes as u64);
        }
    }
}

impl Drop for BufferTable {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for e in self.entries.values() {
            unsafe {
                let _ = sys::cuMemFree_v2(e.ptr);
            }
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f: CudaFunction = ctx.load_module(compile_ptx(AXPY_SRC)?)?.load_function("axpy")?;
    let n: usize = 1 << 20;
    let mut table = BufferTable::new(&ctx);
    let x = table.alloc("x", 4 * n)?;
    let y = table.alloc("y", 4 * n)?;
    table.dump();

    let mut stream: CUstream = null_mut();
    let mut host: *mut c_void = null_mut();
    unsafe {
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        sys::cuMemAllocHost_v2(&mut host, 4 * 16).result()?;
        sys::cuMemsetD32Async(x, 1.0f32.to_bits(), n, stream).result()?;
        sys::cuMemsetD32Async(y, 2.0f32.to_bits(), n, stream).result()?;

        // second half of y only
        let mut y_hi = table.view("y", 2 * n).expect("inside y");
        let mut x_hi = table.view("x", 2 * n).expect("inside x");
        eprintln!("upper halves: x {x_hi:#x}, y {y_hi:#x}");
        let mut a = 3.0f32;
        let mut half = (n / 2) as u32;
        let mut args = [
            (&mut a) as *mut f32 as *mut c_void,
            (&mut x_hi) as *mut CUdeviceptr as *mut c_void,
            (&mut y_hi) as *mut CUdeviceptr as *mut c_void,
            (&mut half) as *mut u32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), half.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut())
            .result()?;
        sys::cuMemcpyDtoHAsync_v2(host, y + (4 * n - 64) as u64, 64, stream).result()?;
        sys::cuStreamSynchronize(stream).result()?;
        let tail = std::slice::from_raw_parts(host as *const f32, 16);
        println!("y tail: {tail:?}");
        sys::cuMemFreeHost(host).result()?;
        sys::cuStreamDestroy_v2(stream).result()?;
    }
    Ok(())
}
