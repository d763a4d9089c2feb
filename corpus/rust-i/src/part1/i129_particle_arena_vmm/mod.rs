//! case: growable particle arena on raw VMM (cudarc driver::sys): `grow` maps a new chunk and zero-fills it with cuMemsetD32Async before `grant_access` runs cuMemSetAccess, and the arena's Drop frees the reserved range with cuMemAddressFree before unmapping the chunks
//! expect: vmm_lifecycle=2

mod arena;
mod release;

pub use arena::ParticleArena;

pub(crate) type VmmResult<T> = Result<T, cudarc::driver::DriverError>;

/// Bytes of one particle record (position, velocity, mass, id).
pub const PARTICLE_BYTES: usize = 32;

pub fn seed_arena(device: i32, stream: cudarc::driver::sys::CUstream, capacity: usize, initial: usize) -> VmmResult<ParticleArena> {
    let mut arena = ParticleArena::reserve(device, stream, capacity * PARTICLE_BYTES)?;
    while arena.mapped_bytes() < initial * PARTICLE_BYTES {
        arena.grow()?;
    }
    Ok(arena)
}
