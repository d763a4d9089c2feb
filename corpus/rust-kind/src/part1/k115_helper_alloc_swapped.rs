//! case: a k-means step gets its device buffers from a local helper `device_buffer` (cudaMalloc) and uploads centroids correctly, but downloads assignments with destination and source swapped under cudaMemcpyDeviceToHost.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

fn device_buffer(bytes: usize) -> *mut c_void {
    let mut p: *mut c_void = std::ptr::null_mut();
    let rc = unsafe { sys::cudaMalloc(&mut p, bytes) };
    assert_eq!(rc, sys::cudaError_t::cudaSuccess, "cudaMalloc of {bytes} bytes failed");
    p
}

pub fn kmeans_assign(points: &[[f32; 2]], centroids: &[[f32; 2]]) -> Vec<u32> {
    let n = points.len();
    let k = centroids.len();
    let d_points = device_buffer(n * 8);
    let d_centroids = device_buffer(k * 8);
    let d_assign = device_buffer(n * 4);
    let mut assign = vec![0u32; n];
    unsafe {
        sys::cudaMemcpy(d_points, points.as_ptr() as *const c_void, n * 8, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(d_centroids, centroids.as_ptr() as *const c_void, k * 8, sys::cudaMemcpyKind::cudaMemcpyHostToDevice);
        // assign kernel: nearest centroid per point -> d_assign
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy(d_assign, assign.as_mut_ptr() as *const c_void, n * 4, sys::cudaMemcpyKind::cudaMemcpyDeviceToHost); // EXPECT: memcpy_kind_mismatch
        for p in [d_points, d_centroids, d_assign] {
            sys::cudaFree(p);
        }
    }
    assign
}

pub fn update_centroids(points: &[[f32; 2]], assign: &[u32], k: usize) -> Vec<[f32; 2]> {
    let mut sums = vec![[0.0f32; 2]; k];
    let mut counts = vec![0u32; k];
    for (p, &a) in points.iter().zip(assign) {
        sums[a as usize][0] += p[0];
        sums[a as usize][1] += p[1];
        counts[a as usize] += 1;
    }
    sums.iter().zip(&counts).map(|(s, &c)| if c == 0 { *s } else { [s[0] / c as f32, s[1] / c as f32] }).collect()
}
