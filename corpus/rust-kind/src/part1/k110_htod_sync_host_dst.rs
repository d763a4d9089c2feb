//! case: a lookup-table builder allocates a table with cuMemAlloc_v2 but calls cudarc's result::memcpy_htod_sync with the address of a host Vec (as CUdeviceptr) as the device destination.
//! expect: memcpy_kind_mismatch=1
use cudarc::driver::{result, sys};

pub struct GammaLut {
    pub d_table: sys::CUdeviceptr,
    pub entries: usize,
}

pub fn gamma_table(gamma: f32, entries: usize) -> Vec<f32> {
    (0..entries).map(|i| (i as f32 / (entries - 1) as f32).powf(1.0 / gamma)).collect()
}

pub fn build_lut(gamma: f32) -> Result<GammaLut, cudarc::driver::DriverError> {
    let entries = 1024;
    let table = gamma_table(gamma, entries);
    let mut shadow = vec![0.0f32; entries];
    let d_table = unsafe { result::malloc_sync(entries * 4)? };
    unsafe {
        result::memcpy_htod_sync(shadow.as_mut_ptr() as sys::CUdeviceptr, &table)?; // EXPECT: memcpy_kind_mismatch
    }
    Ok(GammaLut { d_table, entries })
}

pub fn apply_cpu(lut: &[f32], v: f32) -> f32 {
    let idx = (v.clamp(0.0, 1.0) * (lut.len() - 1) as f32) as usize;
    lut[idx]
}
