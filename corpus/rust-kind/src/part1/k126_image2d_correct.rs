//! case: a stereo-matching front end uploads two grayscale images into cudaMallocPitch buffers with cudaMemcpy2D HostToDevice and downloads the disparity map with cudaMemcpy2D DeviceToHost, all kinds matching.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct Pitched {
    pub ptr: *mut c_void,
    pub pitch: usize,
}

fn alloc_pitched(width_bytes: usize, height: usize) -> Pitched {
    let mut ptr: *mut c_void = std::ptr::null_mut();
    let mut pitch = 0usize;
    unsafe {
        sys::cudaMallocPitch(&mut ptr, &mut pitch, width_bytes, height);
    }
    Pitched { ptr, pitch }
}

pub fn disparity(left: &[u8], right: &[u8], width: usize, height: usize) -> Vec<i16> {
    let l = alloc_pitched(width, height);
    let r = alloc_pitched(width, height);
    let d = alloc_pitched(width * 2, height);
    let mut disp = vec![0i16; width * height];
    unsafe {
        sys::cudaMemcpy2D(l.ptr, l.pitch, left.as_ptr() as *const c_void, width, width, height, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy2D(r.ptr, r.pitch, right.as_ptr() as *const c_void, width, width, height, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        // block-matching kernel l, r -> d
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy2D(
            disp.as_mut_ptr() as *mut c_void,
            width * 2,
            d.ptr,
            d.pitch,
            width * 2,
            height,
            sys::cudaMemcpyKind::cudaMemcpyDeviceToHost,
        );
        for p in [l.ptr, r.ptr, d.ptr] {
            sys::cudaFree(p);
        }
    }
    disp
}

pub fn valid_ratio(disp: &[i16]) -> f32 {
    disp.iter().filter(|&&v| v >= 0).count() as f32 / disp.len().max(1) as f32
}
