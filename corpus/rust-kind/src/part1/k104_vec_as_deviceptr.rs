//! case: an MLP weight loader allocates device memory with cuMemAlloc_v2 but then copies into a host staging Vec's pointer cast to CUdeviceptr with cuMemcpyHtoD_v2, so the "device" destination is pageable host memory.
//! expect: memcpy_kind_mismatch=1
use cudarc::driver::sys;
use std::ffi::c_void;

pub struct DenseLayer {
    pub inputs: usize,
    pub outputs: usize,
    pub d_weights: sys::CUdeviceptr,
}

pub fn xavier_init(inputs: usize, outputs: usize, seed: u64) -> Vec<f32> {
    let scale = (6.0f32 / (inputs + outputs) as f32).sqrt();
    let mut s = seed;
    (0..inputs * outputs)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 33) as f32 / (1u64 << 31) as f32 * 2.0 - 1.0) * scale
        })
        .collect()
}

pub fn load_layer(inputs: usize, outputs: usize, seed: u64) -> DenseLayer {
    let weights = xavier_init(inputs, outputs, seed);
    let bytes = weights.len() * 4;
    let mut staging: Vec<f32> = vec![0.0; weights.len()];
    staging.copy_from_slice(&weights);
    let mut d_weights: sys::CUdeviceptr = 0;
    unsafe {
        let rc = sys::cuMemAlloc_v2(&mut d_weights, bytes);
        assert_eq!(rc, sys::CUresult::CUDA_SUCCESS);
        let dst = staging.as_mut_ptr() as sys::CUdeviceptr;
        let rc = sys::cuMemcpyHtoD_v2(dst, weights.as_ptr() as *const c_void, bytes); // EXPECT: memcpy_kind_mismatch
        assert_eq!(rc, sys::CUresult::CUDA_SUCCESS);
    }
    DenseLayer { inputs, outputs, d_weights }
}

pub fn param_count(layers: &[DenseLayer]) -> usize {
    layers.iter().map(|l| l.inputs * l.outputs).sum()
}
