//! case: molecular-dynamics energy evaluation on raw `cuMemAllocManaged` memory (cudarc `sys`): the host writes the positions through the managed pointer before the launch and reads the per-atom energies through it after `cuStreamSynchronize` on the only stream with work; managed memory is host-accessible, and it is released with `cuMemFree`, which is the right call for it
//! expect: none

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const LJ_SRC: &str = r#"
extern "C" __global__ void lj_energy(const float* pos, float* energy, int n, float box, float rc2) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float e = 0.f;
    for (int j = 0; j < n; ++j) {
        if (j == i) continue;
        float d[3];
        for (int k = 0; k < 3; ++k) { d[k] = pos[3 * j + k] - pos[3 * i + k]; d[k] -= box * rintf(d[k] / box); }
        float r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        if (r2 < rc2) { float s6 = 1.f / (r2 * r2 * r2); e += 2.f * (s6 * s6 - s6); }
    }
    energy[i] = e;
}
"#;

pub struct ManagedArray<T> {
    ptr: sys::CUdeviceptr,
    len: usize,
    _marker: std::marker::PhantomData<T>,
}

impl<T: Copy> ManagedArray<T> {
    pub fn new(len: usize) -> Result<Self, DriverError> {
        let mut ptr: sys::CUdeviceptr = 0;
        unsafe { sys::cuMemAllocManaged(&mut ptr, len * std::mem::size_of::<T>(), sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()? };
        Ok(Self { ptr, len, _marker: std::marker::PhantomData })
    }

    /// # Safety
    /// No kernel may be running while the host holds the slice.
    pub unsafe fn host_mut(&mut self) -> &mut [T] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr as *mut T, self.len) }
    }

    /// # Safety
    /// No kernel may be running while the host holds the slice.
    pub unsafe fn host(&self) -> &[T] {
        unsafe { std::slice::from_raw_parts(self.ptr as *const T, self.len) }
    }
}

impl<T> Drop for ManagedArray<T> {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub fn total_energy(ctx: &Arc<CudaContext>, positions: &[[f32; 3]], box_len: f32) -> Result<f64, Box<dyn std::error::Error>> {
    let n = positions.len();
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_module(compile_ptx(LJ_SRC)?)?.load_function("lj_energy")?;
    // Nothing of the context may run while the host touches managed memory (pre-Pascal rule).
    ctx.synchronize()?;

    let mut pos = ManagedArray::<f32>::new(3 * n)?;
    let energy = ManagedArray::<f32>::new(n)?;
    unsafe {
        pos.host_mut().chunks_exact_mut(3).zip(positions).for_each(|(dst, p)| dst.copy_from_slice(p));
    }

    let (mut a_pos, mut a_energy) = (pos.ptr, energy.ptr);
    let (mut n_i, mut box_l, mut rc2) = (n as i32, box_len, 6.25f32);
    let mut params = [
        &mut a_pos as *mut _ as *mut c_void,
        &mut a_energy as *mut _ as *mut c_void,
        &mut n_i as *mut _ as *mut c_void,
        &mut box_l as *mut _ as *mut c_void,
        &mut rc2 as *mut _ as *mut c_void,
    ];
    unsafe {
        sys::cuLaunchKernel(kernel.cu_function(), (n as u32).div_ceil(128), 1, 1, 128, 1, 1, 0, stream.cu_stream(), params.as_mut_ptr(), null_mut()).result()?;
        sys::cuStreamSynchronize(stream.cu_stream()).result()?;
        Ok(0.5 * energy.host().iter().map(|&e| e as f64).sum::<f64>())
    }
}
