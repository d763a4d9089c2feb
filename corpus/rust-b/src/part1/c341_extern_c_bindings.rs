//! case: a hand-written `extern "C"` binding (with `link_name`) of the driver's async copy, used by a checkpoint loader on Vec<f64> tensors
//! expect: pageable_async_copy=1
use std::ffi::c_void;

pub type CuResult = i32;
pub type DevPtr = u64;
pub type RawStream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cu_copy_h2d_async(dst: DevPtr, src: *const c_void, bytes: usize, stream: RawStream) -> CuResult;
    #[link_name = "cuStreamSynchronize"]
    fn cu_stream_sync(stream: RawStream) -> CuResult;
}

#[derive(Debug)]
pub struct CuError(pub CuResult);

fn check(r: CuResult) -> Result<(), CuError> {
    if r == 0 { Ok(()) } else { Err(CuError(r)) }
}

pub struct Tensor {
    pub name: String,
    pub data: Vec<f64>,
    pub device: DevPtr,
}

pub fn restore(stream: RawStream, tensors: &[Tensor]) -> Result<(), CuError> {
    tensors.iter().try_for_each(|t| {
        let bytes = t.data.len() * std::mem::size_of::<f64>();
        check(unsafe { cu_copy_h2d_async(t.device, t.data.as_ptr().cast(), bytes, stream) }) // EXPECT: pageable_async_copy
    })?;
    check(unsafe { cu_stream_sync(stream) })
}
