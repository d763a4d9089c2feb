//! case: layer pipeline of `dyn Stage` objects over an activation buffer seen through two VMM views of one allocation; the normalize stage's kernel fences between its writes and the reads through the other view, the residual stage's kernel does not
//! expect: unfenced_vmm_alias=1
pub mod pipeline;
pub mod stages;
