//! case: a frame is staged in pinned memory from cuMemAllocHost_v2, sent with cuMemcpyHtoDAsync_v2 and thresholded by a kernel on the same stream; the staging buffer is released with driver::result::free_host right after the launch, while the copy may still be reading it
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void threshold(const float* frame, unsigned char* mask, float level, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        mask[i] = frame[i] > level ? 255 : 0;
    }
}
"#;

struct Pipeline {
    module: sys::CUmodule,
    threshold: CUfunction,
    stream: CUstream,
}

impl Pipeline {
    fn new() -> Result<Self, Box<dyn Error>> {
        let ptx = compile_ptx(SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
        let threshold = unsafe { result::module::get_function(module, CString::new("threshold")?)? };
        let stream = result::stream::create(result::stream::StreamKind::Default)?;
        Ok(Self { module, threshold, stream })
    }

    /// Uploads `frame` through a pinned staging buffer and thresholds it on the device.
    fn segment(&self, frame: &[f32], level: f32) -> Result<Vec<u8>, DriverError> {
        let n = frame.len();
        let frame_bytes = std::mem::size_of_val(frame);
        unsafe {
            let mut staging: *mut c_void = ptr::null_mut();
            let mut d_frame: CUdeviceptr = 0;
            let mut d_mask: CUdeviceptr = 0;
            let a1 = sys::cuMemAllocHost_v2(&mut staging, frame_bytes);
            let a2 = sys::cuMemAlloc_v2(&mut d_frame, frame_bytes);
            let a3 = sys::cuMemAlloc_v2(&mut d_mask, n);
            if let Err(e) = a1.result().and(a2.result()).and(a3.result()) {
                let _ = sys::cuMemFreeHost(staging);
                let _ = sys::cuMemFree_v2(d_frame);
                let _ = sys::cuMemFree_v2(d_mask);
                return Err(e);
            }
            std::slice::from_raw_parts_mut(staging as *mut f32, n).copy_from_slice(frame);

            let mut status =
                sys::cuMemcpyHtoDAsync_v2(d_frame, staging, frame_bytes, self.stream).result();
            if status.is_ok() {
                let (mut p_frame, mut p_mask, mut lvl, mut n_i) = (d_frame, d_mask, level, n as i32);
                let mut args: [*mut c_void; 4] = [
                    (&raw mut p_frame).cast(),
                    (&raw mut p_mask).cast(),
                    (&raw mut lvl).cast(),
                    (&raw mut n_i).cast(),
                ];
                let grid = n.div_ceil(256) as u32;
                status = result::launch_kernel(
                    self.threshold,
                    (grid, 1, 1),
                    (256, 1, 1),
                    0,
                    self.stream,
                    &mut args,
                );
            }
            let staging_freed = result::free_host(staging); // EXPECT: relies_on_implicit_sync

            // Blocking copy on the legacy stream: waits for the (blocking) stream's work.
            let mut mask = vec![0u8; n];
            if status.is_ok() {
                status = result::memcpy_dtoh_sync(&mut mask, d_mask);
            }
            let _ = result::free_sync(d_frame);
            let _ = result::free_sync(d_mask);
            status?;
            staging_freed?;
            Ok(mask)
        }
    }
}

impl Drop for Pipeline {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::destroy(self.stream);
            let _ = result::module::unload(self.module);
        }
    }
}

pub fn run(frames: &[Vec<f32>], level: f32) -> Result<Vec<Vec<u8>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let pipeline = Pipeline::new()?;
    let mut masks = Vec::with_capacity(frames.len());
    for frame in frames {
        masks.push(pipeline.segment(frame, level)?);
    }
    Ok(masks)
}
