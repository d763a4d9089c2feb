//! case: a color-grading stage uploads its LUT into a static device pointer that nothing ever assigns (the allocation lives in a deleted init function).
//! expect: unallocated_pointer=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, DriverError};
use std::mem::size_of;

const LUT_ENTRIES: usize = 33 * 33 * 33;
const LUT_BYTES: usize = LUT_ENTRIES * 3 * size_of::<f32>();

static mut D_LUT: CUdeviceptr = 0;

pub fn upload_lut(lut: &[f32; LUT_ENTRIES * 3]) -> Result<(), DriverError> {
    let _ctx = CudaContext::new(0)?;
    unsafe {
        let d = D_LUT;
        sys::cuMemcpyHtoD_v2(d, lut.as_ptr() as *const _, LUT_BYTES).result() // EXPECT: unallocated_pointer
    }
}
