//! case: a generic staging wrapper forwards a cudaMemcpyKind received as a runtime parameter, and the only local callers pair it with matching Vec/cudaMalloc pointers (HostToDevice for upload, DeviceToHost for download).
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub fn stage(dst: *mut c_void, src: *const c_void, bytes: usize, kind: sys::cudaMemcpyKind) -> Result<(), sys::cudaError_t> {
    let rc = unsafe { sys::cudaMemcpy(dst, src, bytes, kind) };
    if rc == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(rc) }
}

pub fn direction(to_device: bool) -> sys::cudaMemcpyKind {
    if to_device { sys::cudaMemcpyKind::cudaMemcpyHostToDevice } else { sys::cudaMemcpyKind::cudaMemcpyDeviceToHost }
}

pub fn normalize_signal(samples: &mut Vec<f32>) -> Result<(), sys::cudaError_t> {
    let bytes = samples.len() * 4;
    let mut d_sig: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut d_sig, bytes);
    }
    stage(d_sig, samples.as_ptr() as *const c_void, bytes, direction(true))?;
    // normalize kernel on d_sig
    unsafe {
        sys::cudaDeviceSynchronize();
    }
    stage(samples.as_mut_ptr() as *mut c_void, d_sig, bytes, direction(false))?;
    unsafe {
        sys::cudaFree(d_sig);
    }
    Ok(())
}

pub fn peak(samples: &[f32]) -> f32 {
    samples.iter().fold(0.0f32, |m, v| m.max(v.abs()))
}
