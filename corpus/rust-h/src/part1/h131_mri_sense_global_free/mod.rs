//! case: SENSE MRI reconstruction whose coil-sensitivity weights live in a module `__device__` global found with `cuModuleGetGlobal`; the module wrapper's `Drop` "frees" that global with `cuMemFree` before unloading the module: a module global is not an allocation (the driver refuses it)
//! expect: mismatched_free=1

pub mod kernels;
pub mod module;
pub mod teardown;

use cudarc::driver::CudaContext;

pub use module::ReconModule;

/// Combines `n_coils` aliased coil images (interleaved complex) into one image.
pub fn sense_combine(coil_images: &[f32], weights: &[f32], n_coils: usize, pixels: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let recon = ReconModule::load(&ctx)?;
    recon.set_coil_weights(weights, &stream)?;

    let mut staging = unsafe { ctx.alloc_pinned_with_flags::<f32>(coil_images.len(), 0)? };
    staging.as_mut_slice()?.copy_from_slice(coil_images);
    let d_coils = stream.clone_htod(&staging)?;
    let mut d_image = stream.alloc_zeros::<f32>(2 * pixels)?;
    recon.combine(&stream, &d_coils, &mut d_image, n_coils, pixels)?;

    let mut out = unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * pixels, 0)? };
    stream.memcpy_dtoh(&d_image, &mut out)?;
    stream.synchronize()?;
    let magnitude = out.as_slice()?.chunks_exact(2).map(|c| c[0].hypot(c[1])).collect();
    Ok(magnitude)
}
