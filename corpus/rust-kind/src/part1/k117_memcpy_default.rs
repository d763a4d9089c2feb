//! case: a point-cloud voxelizer copies between host Vecs and cudaMalloc buffers using cudaMemcpyDefault in both directions (directly and through a `copy_any` helper), so the runtime infers the direction and no stated kind can contradict the pointers.
//! expect: none
use cudarc::runtime::sys;
use std::ffi::c_void;

pub fn copy_any(dst: *mut c_void, src: *const c_void, bytes: usize) {
    unsafe {
        sys::cudaMemcpy(dst, src, bytes, sys::cudaMemcpyKind::cudaMemcpyDefault);
    }
}

pub fn voxelize(points: &[[f32; 3]], voxel: f32, dims: usize) -> Vec<u8> {
    let nvox = dims * dims * dims;
    let mut occupancy = vec![0u8; nvox];
    let mut d_points: *mut c_void = std::ptr::null_mut();
    let mut d_occ: *mut c_void = std::ptr::null_mut();
    unsafe {
        sys::cudaMalloc(&mut d_points, points.len() * 12);
        sys::cudaMalloc(&mut d_occ, nvox);
        sys::cudaMemset(d_occ, 0, nvox);
        sys::cudaMemcpy(d_points, points.as_ptr() as *const c_void, points.len() * 12, sys::cudaMemcpyKind::cudaMemcpyDefault);
    }
    let _ = voxel;
    // voxel kernel marks d_occ
    unsafe {
        sys::cudaDeviceSynchronize();
    }
    copy_any(occupancy.as_mut_ptr() as *mut c_void, d_occ, nvox);
    let mut snapshot = vec![0u8; nvox];
    unsafe {
        sys::cudaMemcpy(snapshot.as_mut_ptr() as *mut c_void, d_occ as *const c_void, nvox, sys::cudaMemcpyKind::cudaMemcpyDefault);
        sys::cudaFree(d_points);
        sys::cudaFree(d_occ);
    }
    assert_eq!(snapshot.len(), occupancy.len());
    occupancy
}

pub fn filled_fraction(occ: &[u8]) -> f32 {
    occ.iter().filter(|&&v| v != 0).count() as f32 / occ.len() as f32
}
