//! case: growable device vector over the crate's own extern "C" VMM bindings; grow() reserves a larger range, maps every chunk again there plus a new one, grants access, then frees the old reservation while the old mappings are still in place
//! expect: vmm_lifecycle=1
pub mod ffi;
pub mod growvec;
