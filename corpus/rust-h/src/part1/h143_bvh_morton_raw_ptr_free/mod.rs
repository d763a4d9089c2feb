//! case: LBVH builder for a ray tracer: the Morton-code scratch is an `Option<CudaSlice>` allocated on an allocation stream and passed to the build kernel on the build stream as a raw device pointer (`device_ptr(..).0`, whose guard records the read event before the launch); dropping it with `take()` right after the launch makes cudarc free it on the allocation stream after waiting only for that earlier event, while the kernel may still use it
//! expect: missing_sync=1

pub mod builder;
pub mod kernels;

use cudarc::driver::CudaContext;

pub use builder::{BvhBuilder, BvhNode};

pub fn build_bvh(centroids: &[f32]) -> Result<Vec<BvhNode>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let mut builder = BvhBuilder::new(&ctx)?;
    builder.build(centroids)
}
