//! case: an image pipeline uploads a whole RGB frame (3 bytes a pixel) with cuMemcpyHtoD into a device buffer cuMemAlloc'd for one grayscale byte a pixel.
//! expect: copy_out_of_bounds=1
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;

const WIDTH: usize = 1280;
const HEIGHT: usize = 720;
const GRAY_BYTES: usize = WIDTH * HEIGHT;
const RGB_BYTES: usize = WIDTH * HEIGHT * 3;

type Res<T> = Result<T, Box<dyn std::error::Error>>;

pub fn stage_frame_for_luma() -> Res<Vec<u8>> {
    let _ctx = CudaContext::new(0)?;
    let frame = vec![127u8; RGB_BYTES];
    let mut luma = vec![0u8; GRAY_BYTES];
    let mut d_luma: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_luma, GRAY_BYTES).result()?;
        let up = sys::cuMemcpyHtoD_v2(d_luma, frame.as_ptr() as *const _, RGB_BYTES); // EXPECT: copy_out_of_bounds
        let down = sys::cuMemcpyDtoH_v2(luma.as_mut_ptr() as *mut _, d_luma, GRAY_BYTES);
        sys::cuMemFree_v2(d_luma);
        up.result()?;
        down.result()?;
    }
    Ok(luma)
}
