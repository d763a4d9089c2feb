//! case: after filling a cuMemAlloc_v2 buffer with cuMemsetD32 and synchronizing, a "sanity check" dereferences the CUdeviceptr on the host
//! expect: host_deref_device_ptr=1
use cudarc::driver::sys::{self, CUdeviceptr, CUresult};

fn check(r: CUresult) -> Result<(), CUresult> {
    if r == CUresult::CUDA_SUCCESS { Ok(()) } else { Err(r) }
}

pub unsafe fn make_ones(len: usize) -> Result<CUdeviceptr, CUresult> {
    let mut d: CUdeviceptr = 0;
    unsafe {
        check(sys::cuMemAlloc_v2(&mut d, len * 4))?;
        check(sys::cuMemsetD32_v2(d, 1.0f32.to_bits(), len))?;
        check(sys::cuCtxSynchronize())?;
        let first = *(d as *const f32); // EXPECT: host_deref_device_ptr
        if first != 1.0 {
            check(sys::cuMemFree_v2(d))?;
            return Err(CUresult::CUDA_ERROR_UNKNOWN);
        }
    }
    Ok(d)
}
