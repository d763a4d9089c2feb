//! case: a cudaMallocManaged particle table held in an Option, taken in Drop and freed with cudaFree (the right function)
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Particle {
    pub pos: [f32; 3],
    pub vel: [f32; 3],
}

pub struct ParticleTable {
    storage: Option<*mut Particle>,
    len: usize,
}

impl ParticleTable {
    pub fn with_capacity(len: usize) -> Option<ParticleTable> {
        let mut p: *mut c_void = null_mut();
        let bytes = len * std::mem::size_of::<Particle>();
        let e = unsafe { sys::cudaMallocManaged(&mut p, bytes, sys::cudaMemAttachGlobal) };
        if e != sys::cudaError_t::cudaSuccess {
            return None;
        }
        let storage = p as *mut Particle;
        for i in 0..len {
            unsafe { storage.add(i).write(Particle::default()) };
        }
        Some(ParticleTable { storage: Some(storage), len })
    }

    pub fn particles_mut(&mut self) -> &mut [Particle] {
        match self.storage {
            Some(p) => unsafe { std::slice::from_raw_parts_mut(p, self.len) },
            None => &mut [],
        }
    }

    /// Releases the table early (e.g. when the scene is unloaded).
    pub fn clear(&mut self) {
        if let Some(p) = self.storage.take() {
            unsafe {
                let _ = sys::cudaDeviceSynchronize();
                let _ = sys::cudaFree(p as *mut c_void);
            }
        }
        self.len = 0;
    }
}

impl Drop for ParticleTable {
    fn drop(&mut self) {
        self.clear();
    }
}

pub fn run() {
    let Some(mut table) = ParticleTable::with_capacity(4096) else { return };
    for (i, p) in table.particles_mut().iter_mut().enumerate() {
        p.pos = [i as f32, 0.0, 0.0];
        p.vel = [0.0, 1.0, 0.0];
    }
    table.clear();
    // dropping the (already empty) table frees nothing twice
}
