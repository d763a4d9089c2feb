//! case: cudarc driver::result API: a kernel counts values above a threshold; the u32 threshold is uploaded and the u32 count read back with async copies from/to the stack (single scalars)
//! expect: none
use std::ffi::{c_void, CString};

use cudarc::driver::result::{self, stream::StreamKind};
use cudarc::driver::sys::CUdeviceptr;

const COUNT_SRC: &str = r#"
extern "C" __global__ void count_above(const float* x, const unsigned* thr, unsigned* count, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && x[i] > (float)thr[0]) atomicAdd(count, 1u);
}
"#;

/// `x` is a device array of `n` floats owned by the caller.
pub unsafe fn count_above(x: CUdeviceptr, n: u32, threshold: u32) -> Result<u32, Box<dyn std::error::Error>> {
    let ptx = cudarc::nvrtc::compile_ptx(COUNT_SRC)?;
    let image = CString::new(ptx.to_src())?;
    unsafe {
        let module = result::module::load_data(image.as_ptr().cast())?;
        let f = result::module::get_function(module, CString::new("count_above")?)?;
        let stream = result::stream::create(StreamKind::NonBlocking)?;
        let thr_dev = result::malloc_sync(4)?;
        let count_dev = result::malloc_sync(4)?;
        result::memset_d8_async(count_dev, 0, 4, stream)?;
        result::memcpy_htod_async(thr_dev, &[threshold], stream)?;

        let (mut xp, mut tp, mut cp, mut len) = (x, thr_dev, count_dev, n);
        let mut params: [*mut c_void; 4] = [
            (&mut xp as *mut CUdeviceptr).cast(),
            (&mut tp as *mut CUdeviceptr).cast(),
            (&mut cp as *mut CUdeviceptr).cast(),
            (&mut len as *mut u32).cast(),
        ];
        result::launch_kernel(f, (n.div_ceil(256), 1, 1), (256, 1, 1), 0, stream, &mut params)?;

        let mut count = [0u32; 1];
        result::memcpy_dtoh_async(&mut count, count_dev, stream)?;
        // a device-to-pageable copy has completed when the call returns
        let above = count[0];
        result::stream::synchronize(stream)?;
        result::free_sync(thr_dev)?;
        result::free_sync(count_dev)?;
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
        Ok(above)
    }
}
