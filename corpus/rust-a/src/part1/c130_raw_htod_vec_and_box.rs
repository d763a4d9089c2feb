//! case: raw driver API uploads with cuMemcpyHtoDAsync_v2 from a Vec sized at run time and from a 4 MiB boxed array, both pageable; a pinned cuMemAllocHost upload beside them
//! expect: pageable_async_copy=2
use std::ffi::c_void;
use std::ptr;

use cudarc::driver::sys::{self, CUdeviceptr, CUresult, CUstream};

const LUT_LEN: usize = 1 << 20; // 4 MiB of f32

fn check(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub struct Uploads {
    pub coords: CUdeviceptr,
    pub lut: CUdeviceptr,
    pub weights: CUdeviceptr,
}

pub unsafe fn upload_scene(stream: CUstream, coords: Vec<f32>, weights_len: usize) -> Result<Uploads, CUresult> {
    let lut: Box<[f32; LUT_LEN]> = vec![0.5f32; LUT_LEN].into_boxed_slice().try_into().expect("length");
    let (mut d_coords, mut d_lut, mut d_weights): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let coords_bytes = coords.len() * 4;
    let weights_bytes = weights_len * 4;
    unsafe {
        check(sys::cuMemAlloc_v2(&mut d_coords, coords_bytes))?;
        check(sys::cuMemAlloc_v2(&mut d_lut, LUT_LEN * 4))?;
        check(sys::cuMemAlloc_v2(&mut d_weights, weights_bytes))?;

        check(sys::cuMemcpyHtoDAsync_v2(d_coords, coords.as_ptr().cast(), coords_bytes, stream))?; // EXPECT: pageable_async_copy
        check(sys::cuMemcpyHtoDAsync_v2(d_lut, lut.as_ptr().cast(), LUT_LEN * 4, stream))?; // EXPECT: pageable_async_copy

        let mut staging: *mut c_void = ptr::null_mut();
        check(sys::cuMemAllocHost_v2(&mut staging, weights_bytes))?;
        std::slice::from_raw_parts_mut(staging.cast::<f32>(), weights_len).fill(1.0);
        check(sys::cuMemcpyHtoDAsync_v2(d_weights, staging, weights_bytes, stream))?;
        check(sys::cuStreamSynchronize(stream))?;
        check(sys::cuMemFreeHost(staging))?;
    }
    drop(coords);
    Ok(Uploads { coords: d_coords, lut: d_lut, weights: d_weights })
}
