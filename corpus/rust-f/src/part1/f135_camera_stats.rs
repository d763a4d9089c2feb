//! case: a camera pipeline keeps its 256-bin histogram in `cuMemAllocManaged` memory; per frame it launches the tone-equalization kernel (device buffers and a LUT only) and, to save time, clears the managed histogram for the next pass on the host while that kernel may still run, then launches the histogram kernel and reads the bins after synchronizing
//! expect: managed_concurrent_access=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, DriverError};
use cudarc::nvrtc::compile_ptx;

const CAM_SRC: &str = r#"
extern "C" __global__ void equalize(unsigned char* frame, const unsigned char* lut, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = lut[frame[i]];
}

extern "C" __global__ void histogram(const unsigned char* frame, unsigned int* bins, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[frame[i]], 1u);
}
"#;

pub struct CameraStats {
    ctx: Arc<CudaContext>,
    equalize: CudaFunction,
    histogram: CudaFunction,
    stream: CUstream,
    frame: CUdeviceptr,
    lut: CUdeviceptr,
    bins: CUdeviceptr,
    pixels: u32,
}

unsafe fn launch3(f: &CudaFunction, a: CUdeviceptr, b: CUdeviceptr, n: u32, stream: CUstream) -> Result<(), DriverError> {
    let (mut a, mut b, mut n) = (a, b, n);
    let mut args = [
        (&mut a) as *mut CUdeviceptr as *mut c_void,
        (&mut b) as *mut CUdeviceptr as *mut c_void,
        (&mut n) as *mut u32 as *mut c_void,
    ];
    unsafe { sys::cuLaunchKernel(f.cu_function(), n.div_ceil(256), 1, 1, 256, 1, 1, 0, stream, args.as_mut_ptr(), null_mut()).result() }
}

impl CameraStats {
    pub fn new(ctx: &Arc<CudaContext>, pixels: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(CAM_SRC)?)?;
        let mut stream: CUstream = null_mut();
        let (mut frame, mut lut, mut bins) = (0, 0, 0);
        unsafe {
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuMemAlloc_v2(&mut frame, pixels as usize).result()?;
            sys::cuMemAlloc_v2(&mut lut, 256).result()?;
            sys::cuMemAllocManaged(&mut bins, 256 * 4, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
            let table: [u8; 256] = std::array::from_fn(|v| ((v as f32 / 255.0).sqrt() * 255.0) as u8);
            sys::cuMemcpyHtoDAsync_v2(lut, table.as_ptr().cast(), 256, stream).result()?;
            sys::cuMemsetD8Async(frame, 0, pixels as usize, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
        Ok(Self {
            ctx: ctx.clone(),
            equalize: module.load_function("equalize")?,
            histogram: module.load_function("histogram")?,
            stream,
            frame,
            lut,
            bins,
            pixels,
        })
    }

    /// Equalizes the current frame and returns its histogram.
    pub fn process(&mut self) -> Result<[u32; 256], DriverError> {
        unsafe {
            launch3(&self.equalize, self.frame, self.lut, self.pixels, self.stream)?;
            std::ptr::write_bytes(self.bins as *mut u32, 0, 256); // EXPECT: managed_concurrent_access
            launch3(&self.histogram, self.frame, self.bins, self.pixels, self.stream)?;
            sys::cuStreamSynchronize(self.stream).result()?;
            let mut out = [0u32; 256];
            out.copy_from_slice(std::slice::from_raw_parts(self.bins as *const u32, 256));
            Ok(out)
        }
    }
}

impl Drop for CameraStats {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for p in [self.frame, self.lut, self.bins] {
                let _ = sys::cuMemFree_v2(p);
            }
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut cam = CameraStats::new(&ctx, 1920 * 1080)?;
    for k in 0..3 {
        let h = cam.process()?;
        println!("frame {k}: {} dark pixels", h[..16].iter().sum::<u32>());
    }
    Ok(())
}
