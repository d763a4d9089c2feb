//! case: an image histogram module keeps its copy direction in a `const UPLOAD_KIND` (HostToDevice) and reuses it for the download of the bins into a Box<[u32]>, so the readback states the wrong direction.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

const UPLOAD_KIND: sys::cudaMemcpyKind = sys::cudaMemcpyKind::cudaMemcpyHostToDevice;
const BINS: usize = 256;

pub struct GrayImage {
    pub width: usize,
    pub height: usize,
    pub pixels: Vec<u8>,
}

pub fn histogram_gpu(img: &GrayImage) -> Box<[u32]> {
    let npx = img.width * img.height;
    let mut d_pixels: *mut c_void = std::ptr::null_mut();
    let mut d_bins: *mut c_void = std::ptr::null_mut();
    let mut bins: Box<[u32]> = vec![0u32; BINS].into_boxed_slice();
    unsafe {
        sys::cudaMalloc(&mut d_pixels, npx);
        sys::cudaMalloc(&mut d_bins, BINS * 4);
        sys::cudaMemset(d_bins, 0, BINS * 4);
        sys::cudaMemcpy(d_pixels, img.pixels.as_ptr() as *const c_void, npx, UPLOAD_KIND);
        // histogram kernel runs here
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy(bins.as_mut_ptr() as *mut c_void, d_bins, BINS * 4, UPLOAD_KIND); // EXPECT: memcpy_kind_mismatch
        sys::cudaFree(d_pixels);
        sys::cudaFree(d_bins);
    }
    bins
}

pub fn otsu_threshold(bins: &[u32]) -> u8 {
    let total: u64 = bins.iter().map(|&b| b as u64).sum();
    let sum_all: f64 = bins.iter().enumerate().map(|(i, &b)| i as f64 * b as f64).sum();
    let (mut wb, mut sb, mut best, mut thr) = (0u64, 0f64, 0f64, 0u8);
    for (t, &b) in bins.iter().enumerate() {
        wb += b as u64;
        if wb == 0 || wb == total { continue; }
        sb += t as f64 * b as f64;
        let wf = (total - wb) as f64;
        let mb = sb / wb as f64;
        let mf = (sum_all - sb) / wf;
        let between = wb as f64 * wf * (mb - mf).powi(2);
        if between > best { best = between; thr = t as u8; }
    }
    thr
}
