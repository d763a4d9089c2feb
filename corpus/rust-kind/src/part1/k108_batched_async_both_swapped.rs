//! case: a batched inference loop with cudaMemcpyAsync on a stream uploads each batch with cudaMemcpyDeviceToHost and downloads logits with cudaMemcpyHostToDevice, both kinds swapped relative to the Vec/cudaMalloc arguments.
//! expect: memcpy_kind_mismatch=2
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct Batch {
    pub features: Vec<f32>,
}

pub fn run_batches(batches: &[Batch], feat_dim: usize, classes: usize, batch_size: usize) -> Vec<Vec<f32>> {
    let in_bytes = batch_size * feat_dim * 4;
    let out_bytes = batch_size * classes * 4;
    let mut stream: sys::cudaStream_t = std::ptr::null_mut();
    let mut d_in: *mut c_void = std::ptr::null_mut();
    let mut d_out: *mut c_void = std::ptr::null_mut();
    let mut results = Vec::with_capacity(batches.len());
    unsafe {
        sys::cudaStreamCreate(&mut stream);
        sys::cudaMalloc(&mut d_in, in_bytes);
        sys::cudaMalloc(&mut d_out, out_bytes);
    }
    for batch in batches {
        let mut logits = vec![0.0f32; batch_size * classes];
        unsafe {
            sys::cudaMemcpyAsync( // EXPECT: memcpy_kind_mismatch
                d_in,
                batch.features.as_ptr() as *const c_void,
                in_bytes,
                sys::cudaMemcpyKind::cudaMemcpyDeviceToHost,
                stream,
            );
            // forward kernel enqueued on `stream`
            sys::cudaMemcpyAsync(logits.as_mut_ptr() as *mut c_void, d_out, out_bytes, sys::cudaMemcpyKind::cudaMemcpyHostToDevice, stream); // EXPECT: memcpy_kind_mismatch
            sys::cudaStreamSynchronize(stream);
        }
        results.push(logits);
    }
    unsafe {
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaStreamDestroy(stream);
    }
    results
}

pub fn argmax(row: &[f32]) -> usize {
    row.iter().enumerate().fold((0, f32::MIN), |acc, (i, &v)| if v > acc.1 { (i, v) } else { acc }).0
}
