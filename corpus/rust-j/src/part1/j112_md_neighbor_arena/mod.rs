//! case: molecular-dynamics neighbour-list arena grows inside one VMM reservation: each new chunk is cuMemCreate'd, mapped at `base + mapped` and given access with cuMemSetAccess before any kernel or memset uses it; teardown synchronizes, unmaps every chunk, releases the handles and only then frees the reservation
//! expect: none

mod arena;
mod build;

pub use arena::{ArenaError, NeighborArena};
pub use build::{rebuild_neighbor_list, NeighborParams};
