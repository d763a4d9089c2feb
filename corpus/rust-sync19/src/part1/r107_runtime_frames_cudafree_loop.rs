//! case: exposure stacking with cudarc::runtime::sys: every frame gets a cudaMalloc'd temporary, a blocking upload and an accumulate kernel on a created stream, then the temporary is cudaFree'd in the same iteration with no wait for that kernel
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::driver::sys::CUfunction;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{RuntimeError, launch_kernel};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const SRC: &str = r#"
extern "C" __global__ void accumulate(float* acc, const float* frame, float weight, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        acc[i] += weight * frame[i];
    }
}
"#;

fn load_accumulate() -> Result<(cudarc::driver::sys::CUmodule, CUfunction), Box<dyn Error>> {
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    unsafe {
        let module = drv::module::load_data(image.as_ptr().cast())?;
        let f = drv::module::get_function(module, CString::new("accumulate")?)?;
        Ok((module, f))
    }
}

/// Averages `frames` (all of `n` pixels) on the device.
pub fn stack(frames: &[Vec<f32>], n: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(frames.iter().all(|f| f.len() == n));
    unsafe { rt::cudaSetDevice(0).result()? };
    let (module, f) = load_accumulate()?;
    let mut stream: cudaStream_t = ptr::null_mut();
    unsafe { rt::cudaStreamCreate(&mut stream).result()? };
    let bytes = n * std::mem::size_of::<f32>();
    let weight = 1.0 / frames.len().max(1) as f32;

    let mut out = vec![0.0f32; n];
    unsafe {
        let mut d_acc: *mut c_void = ptr::null_mut();
        rt::cudaMalloc(&mut d_acc, bytes).result()?;
        let mut failure: Option<RuntimeError> = rt::cudaMemset(d_acc, 0, bytes).result().err();

        for frame in frames {
            if failure.is_some() {
                break;
            }
            let mut d_frame: *mut c_void = ptr::null_mut();
            if let Err(e) = rt::cudaMalloc(&mut d_frame, bytes).result() {
                failure = Some(e);
                break;
            }
            let mut step = rt::cudaMemcpy(
                d_frame,
                frame.as_ptr().cast(),
                bytes,
                cudaMemcpyKind::cudaMemcpyHostToDevice,
            )
            .result();
            if step.is_ok() {
                let (mut p_acc, mut p_frame, mut w, mut n_i) = (d_acc, d_frame, weight, n as i32);
                let mut args: [*mut c_void; 4] = [
                    (&raw mut p_acc).cast(),
                    (&raw mut p_frame).cast(),
                    (&raw mut w).cast(),
                    (&raw mut n_i).cast(),
                ];
                let grid = n.div_ceil(256) as u32;
                step = launch_kernel(f, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args);
            }
            let freed = rt::cudaFree(d_frame).result(); // EXPECT: relies_on_implicit_sync
            if let Err(e) = step.and(freed) {
                failure = Some(e);
            }
        }

        let synced = rt::cudaStreamSynchronize(stream).result();
        let copied = synced.and_then(|_| {
            rt::cudaMemcpy(out.as_mut_ptr().cast(), d_acc, bytes, cudaMemcpyKind::cudaMemcpyDeviceToHost)
                .result()
        });
        let _ = rt::cudaFree(d_acc);
        let _ = rt::cudaStreamDestroy(stream);
        let _ = drv::module::unload(module);
        if let Some(e) = failure {
            return Err(e.into());
        }
        copied?;
    }
    Ok(out)
}
