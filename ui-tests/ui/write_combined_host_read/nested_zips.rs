// `a.iter_mut().zip(b).enumerate()` yields `(i, (x, y))`: each part of the pattern is its own
// side's item. Writing `*x` into write-combined memory is what it is for; reading it is slow.
use cudarc::driver::{CudaContext, PinnedHostSlice};

const MEAN: [f32; 3] = [0.485, 0.456, 0.406];

fn ok_normalised_into_the_staging_buffer(staging: &mut PinnedHostSlice<f32>, rgb: &[u8]) -> Result<(), cudarc::driver::DriverError> {
    let dst = staging.as_mut_slice()?;
    dst.iter_mut()
        .zip(rgb)
        .enumerate()
        .for_each(|(i, (d, &px))| *d = px as f32 / 255.0 - MEAN[i % 3]);
    Ok(())
}

fn fires_accumulated_into_the_staging_buffer(ctx: &std::sync::Arc<CudaContext>, rgb: &[u8]) -> Result<(), cudarc::driver::DriverError> {
    let mut staging = unsafe { ctx.alloc_pinned::<f32>(rgb.len())? };
    let dst = staging.as_mut_slice()?;
    dst.iter_mut()
        .zip(rgb)
        .enumerate()
        .for_each(|(i, (d, &px))| *d += px as f32 / 255.0 - MEAN[i % 3]); //~ write_combined_host_read
    Ok(())
}

fn main() {}
