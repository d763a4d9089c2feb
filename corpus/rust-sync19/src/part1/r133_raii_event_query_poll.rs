//! case: a RAII device buffer (cuMemFree_v2 in Drop) holds the kernel's lookup weights; an event recorded after the launch is polled with cuEventQuery until it is ready (the host does other work meanwhile) before the buffer is dropped
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUevent_flags, CUresult};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void weighted_vote(const int* labels, const float* class_weight, float* score, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) score[i] = class_weight[labels[i]];
}
"#;

struct Dev {
    ptr: CUdeviceptr,
}

impl Dev {
    fn with_bytes(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr })
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Polls `ev` until the work before it has finished, calling `idle` meanwhile.
fn wait_polling(ev: CUevent, mut idle: impl FnMut()) -> Result<(), DriverError> {
    loop {
        match unsafe { sys::cuEventQuery(ev) } {
            CUresult::CUDA_SUCCESS => return Ok(()),
            CUresult::CUDA_ERROR_NOT_READY => idle(),
            e => return Err(DriverError(e)),
        }
    }
}

pub fn vote(labels: &[i32], class_weight: &[f32]) -> Result<(Vec<f32>, u64), Box<dyn Error>> {
    assert!(labels.iter().all(|&l| l >= 0 && (l as usize) < class_weight.len()));
    let n = labels.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("weighted_vote")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;
    let mut done: CUevent = ptr::null_mut();
    unsafe { sys::cuEventCreate(&mut done, CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()? };

    let d_labels = Dev::with_bytes(n * 4)?;
    let d_score = Dev::with_bytes(n * 4)?;
    let weights = Dev::with_bytes(class_weight.len() * 4)?;
    unsafe {
        result::memcpy_htod_sync(d_labels.ptr, labels)?;
        result::memcpy_htod_sync(weights.ptr, class_weight)?;
        let (mut p_l, mut p_w, mut p_s, mut n_i) = (d_labels.ptr, weights.ptr, d_score.ptr, n as i32);
        let mut args: [*mut c_void; 4] = [(&raw mut p_l).cast(), (&raw mut p_w).cast(), (&raw mut p_s).cast(), (&raw mut n_i).cast()];
        result::launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args)?;
    }
    let mut spins = 0u64;
    let waited = match unsafe { sys::cuEventRecord(done, stream).result() } {
        Ok(()) => wait_polling(done, || {
            spins += 1;
            std::hint::spin_loop();
        }),
        Err(_) => unsafe { result::stream::synchronize(stream) },
    };
    drop(weights);
    waited?;

    let mut score = vec![0.0f32; n];
    unsafe {
        result::memcpy_dtoh_sync(&mut score, d_score.ptr)?;
        let _ = sys::cuEventDestroy_v2(done);
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
    }
    Ok((score, spins))
}
