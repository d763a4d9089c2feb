//! case: a crate binds cuMemAlloc/cuMemcpyHtoD/cuMemcpyDtoH itself in an extern "C" block (with #[link_name] to the _v2 symbols) and uses them with a host array and a device address in the right direction.
//! expect: none
use std::ffi::c_void;
use std::os::raw::c_int;

pub type DevPtr = u64;

unsafe extern "C" {
    #[link_name = "cuMemAlloc_v2"]
    fn cu_mem_alloc(dptr: *mut DevPtr, bytes: usize) -> c_int;
    #[link_name = "cuMemcpyHtoD_v2"]
    fn cu_memcpy_htod(dst: DevPtr, src: *const c_void, bytes: usize) -> c_int;
    #[link_name = "cuMemcpyDtoH_v2"]
    fn cu_memcpy_dtoh(dst: *mut c_void, src: DevPtr, bytes: usize) -> c_int;
    #[link_name = "cuMemFree_v2"]
    fn cu_mem_free(dptr: DevPtr) -> c_int;
}

pub const TAPS: usize = 64;

pub fn fir_coefficients(cutoff: f32) -> [f32; TAPS] {
    let mut h = [0.0f32; TAPS];
    let mid = (TAPS - 1) as f32 / 2.0;
    for (i, c) in h.iter_mut().enumerate() {
        let t = i as f32 - mid;
        let sinc = if t == 0.0 { 2.0 * cutoff } else { (2.0 * std::f32::consts::PI * cutoff * t).sin() / (std::f32::consts::PI * t) };
        let hamming = 0.54 - 0.46 * (2.0 * std::f32::consts::PI * i as f32 / (TAPS - 1) as f32).cos();
        *c = sinc * hamming;
    }
    h
}

pub fn roundtrip_taps(cutoff: f32) -> Option<[f32; TAPS]> {
    let taps = fir_coefficients(cutoff);
    let mut back = [0.0f32; TAPS];
    let mut d_taps: DevPtr = 0;
    unsafe {
        if cu_mem_alloc(&mut d_taps, TAPS * 4) != 0 {
            return None;
        }
        cu_memcpy_htod(d_taps, taps.as_ptr() as *const c_void, TAPS * 4);
        cu_memcpy_dtoh(back.as_mut_ptr() as *mut c_void, d_taps, TAPS * 4);
        cu_mem_free(d_taps);
    }
    Some(back)
}
