use std::ffi::{c_void, CString};
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DriverError};
use cudarc::nvrtc::compile_ptx;

use super::kernels::{MAX_COILS, SENSE_SRC};

/// The SENSE module loaded through the driver API, with its coil-weight global.
pub struct ReconModule {
    pub(super) ctx: Arc<CudaContext>,
    pub(super) module: sys::CUmodule,
    pub(super) combine_fn: sys::CUfunction,
    pub(super) d_weights: sys::CUdeviceptr,
    pub(super) weights_bytes: usize,
}

impl ReconModule {
    pub fn load(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        ctx.bind_to_thread()?;
        let image = CString::new(compile_ptx(SENSE_SRC)?.to_src())?;
        let mut module: sys::CUmodule = null_mut();
        let mut combine_fn: sys::CUfunction = null_mut();
        let mut d_weights: sys::CUdeviceptr = 0;
        let mut weights_bytes = 0usize;
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void).result()?;
            sys::cuModuleGetFunction(&mut combine_fn, module, c"sense_combine".as_ptr()).result()?;
            sys::cuModuleGetGlobal_v2(&mut d_weights, &mut weights_bytes, module, c"coil_weights".as_ptr()).result()?;
        }
        Ok(Self { ctx: ctx.clone(), module, combine_fn, d_weights, weights_bytes })
    }

    /// Copies up to 32 complex weights into the module global (a small, stream-ordered copy).
    pub fn set_coil_weights(&self, weights: &[f32], stream: &Arc<CudaStream>) -> Result<(), DriverError> {
        let mut padded = [0f32; 2 * MAX_COILS];
        let n = weights.len().min(2 * MAX_COILS);
        padded[..n].copy_from_slice(&weights[..n]);
        debug_assert_eq!(std::mem::size_of_val(&padded), self.weights_bytes);
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.d_weights, padded.as_ptr() as *const c_void, std::mem::size_of_val(&padded), stream.cu_stream()).result()?;
        }
        // `padded` lives on this stack frame.
        stream.synchronize()
    }

    pub fn combine(&self, stream: &Arc<CudaStream>, coils: &CudaSlice<f32>, image: &mut CudaSlice<f32>, n_coils: usize, pixels: usize) -> Result<(), DriverError> {
        let (coils_ptr, _r) = coils.device_ptr(stream);
        let (image_ptr, _w) = image.device_ptr_mut(stream);
        let (mut a0, mut a1) = (coils_ptr, image_ptr);
        let (mut nc, mut np) = (n_coils as i32, pixels as i32);
        let mut params = [
            &mut a0 as *mut _ as *mut c_void,
            &mut a1 as *mut _ as *mut c_void,
            &mut nc as *mut _ as *mut c_void,
            &mut np as *mut _ as *mut c_void,
        ];
        let blocks = (pixels as u32).div_ceil(256);
        unsafe {
            sys::cuLaunchKernel(self.combine_fn, blocks, 1, 1, 256, 1, 1, 0, stream.cu_stream(), params.as_mut_ptr(), null_mut()).result()
        }
    }
}
