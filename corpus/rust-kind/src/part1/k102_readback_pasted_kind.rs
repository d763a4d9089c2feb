//! case: an SPH particle step uploads positions correctly, then reads the densities back with a cudaMemcpy whose kind was pasted from the upload (HostToDevice while dst is a host Vec and src a cudaMalloc buffer).
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

#[derive(Clone, Copy, Default)]
pub struct Particle {
    pub x: f32,
    pub y: f32,
    pub z: f32,
    pub mass: f32,
}

pub fn seed_particles(n: usize) -> Vec<Particle> {
    (0..n)
        .map(|i| Particle { x: (i % 32) as f32, y: (i / 32 % 32) as f32, z: (i / 1024) as f32, mass: 1.0 })
        .collect()
}

pub fn density_pass(n: usize) -> Vec<f32> {
    let particles = seed_particles(n);
    let pbytes = n * std::mem::size_of::<Particle>();
    let dbytes = n * std::mem::size_of::<f32>();
    let mut d_particles: *mut c_void = std::ptr::null_mut();
    let mut d_density: *mut c_void = std::ptr::null_mut();
    let mut density = vec![0.0f32; n];
    unsafe {
        sys::cudaMalloc(&mut d_particles, pbytes);
        sys::cudaMalloc(&mut d_density, dbytes);
        sys::cudaMemcpy(
            d_particles,
            particles.as_ptr() as *const c_void,
            pbytes,
            sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
        );
        // ... density kernel launched elsewhere ...
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy( // EXPECT: memcpy_kind_mismatch
            density.as_mut_ptr() as *mut c_void,
            d_density,
            dbytes,
            sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
        );
        sys::cudaFree(d_particles);
        sys::cudaFree(d_density);
    }
    density
}

pub fn mean_density(d: &[f32]) -> f32 {
    d.iter().sum::<f32>() / d.len().max(1) as f32
}
