//! case: a particle binning step cuMemsetD32's its per-cell offsets before a kernel that only loads them; the memset is the write.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use std::ffi::c_void;
use std::mem::size_of;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather_offsets(const unsigned int* cell_offset, const unsigned int* cell_of, unsigned int* slot, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) slot[i] = cell_offset[cell_of[i]] + i;
}
"#;

const CELLS: usize = 32 * 32 * 32;
const PARTICLES: usize = 100_000;

pub fn bin_particles(cell_of: &[u32; PARTICLES]) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather_offsets")?;
    let mut slots = vec![0u32; PARTICLES];
    let (mut d_off, mut d_cell, mut d_slot): (CUdeviceptr, CUdeviceptr, CUdeviceptr) = (0, 0, 0);
    let mut n = PARTICLES as i32;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_off, CELLS * size_of::<u32>());
        sys::cuMemAlloc_v2(&mut d_cell, PARTICLES * size_of::<u32>());
        sys::cuMemAlloc_v2(&mut d_slot, PARTICLES * size_of::<u32>());
        sys::cuMemsetD32_v2(d_off, 0, CELLS);
        sys::cuMemcpyHtoD_v2(d_cell, cell_of.as_ptr() as *const c_void, PARTICLES * size_of::<u32>());
        let mut params: [*mut c_void; 4] = [
            &mut d_off as *mut CUdeviceptr as *mut c_void,
            &mut d_cell as *mut CUdeviceptr as *mut c_void,
            &mut d_slot as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), PARTICLES.div_ceil(256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(slots.as_mut_ptr() as *mut c_void, d_slot, PARTICLES * size_of::<u32>());
        sys::cuMemFree_v2(d_off);
        sys::cuMemFree_v2(d_cell);
        sys::cuMemFree_v2(d_slot);
    }
    Ok(slots)
}
