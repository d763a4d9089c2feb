//! case: runtime API batch loop: each batch is staged in pinned memory (cudaMallocHost), sent with cudaMemcpyAsync into a cudaMalloc'd temporary and added into an accumulator by a kernel; cudaStreamSynchronize comes before the temporary's cudaFree and before the staging buffer is refilled
//! expect: none

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{RuntimeError, launch_kernel};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const SRC: &str = r#"
extern "C" __global__ void add_into(float* acc, const float* batch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += batch[i];
}
"#;

/// Element-wise sum of `batches`, all of length `n`.
pub fn sum_batches(batches: &[Vec<f32>], n: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(batches.iter().all(|b| b.len() == n));
    let bytes = n * 4;
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { drv::module::get_function(module, CString::new("add_into")?)? };

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut stream: cudaStream_t = ptr::null_mut();
        let mut staging: *mut c_void = ptr::null_mut();
        let mut d_acc: *mut c_void = ptr::null_mut();
        let s1 = rt::cudaStreamCreate(&mut stream);
        let s2 = rt::cudaMallocHost(&mut staging, bytes);
        let s3 = rt::cudaMalloc(&mut d_acc, bytes);
        if let Err(e) = s1.result().and(s2.result()).and(s3.result()) {
            rt::cudaFreeHost(staging);
            rt::cudaFree(d_acc);
            rt::cudaStreamDestroy(stream);
            return Err(e.into());
        }
        let stage = std::slice::from_raw_parts_mut(staging as *mut f32, n);
        let mut status: Result<(), RuntimeError> = rt::cudaMemset(d_acc, 0, bytes).result();

        for batch in batches {
            if status.is_err() {
                break;
            }
            let mut d_tmp: *mut c_void = ptr::null_mut();
            status = rt::cudaMalloc(&mut d_tmp, bytes).result();
            if status.is_err() {
                break;
            }
            stage.copy_from_slice(batch);
            status = rt::cudaMemcpyAsync(d_tmp, staging, bytes, cudaMemcpyKind::cudaMemcpyHostToDevice, stream).result();
            if status.is_ok() {
                let (mut p_acc, mut p_tmp, mut n_i) = (d_acc, d_tmp, n as i32);
                let mut args: [*mut c_void; 3] = [(&raw mut p_acc).cast(), (&raw mut p_tmp).cast(), (&raw mut n_i).cast()];
                status = launch_kernel(f, (n.div_ceil(256) as u32, 1, 1), (256, 1, 1), 0, stream, &mut args);
            }
            let synced = rt::cudaStreamSynchronize(stream).result();
            rt::cudaFree(d_tmp);
            status = status.and(synced);
        }

        if status.is_ok() {
            status = rt::cudaMemcpy(out.as_mut_ptr().cast(), d_acc, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost).result();
        }
        rt::cudaFree(d_acc);
        rt::cudaFreeHost(staging);
        rt::cudaStreamDestroy(stream);
        let _ = drv::module::unload(module);
        status?;
    }
    Ok(out)
}
