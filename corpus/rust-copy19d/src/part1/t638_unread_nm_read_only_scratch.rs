//! case: a lookup table uploaded to a cudaMalloc'd buffer is only loaded by a gather kernel and then freed unread; only a kernel's write makes output, and the gathered output is copied back.
//! expect: none
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{cudaFree, cudaMalloc, cudaMemcpy, cudaMemcpyKind};
use std::ffi::c_void;
use std::mem::size_of;

const GATHER_SRC: &str = r#"
extern "C" __global__ void gather(const float* table, const int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = table[idx[i]];
}
"#;

const TABLE: usize = 50_000;
const LOOKUPS: usize = 4096;

pub fn embed(table: &[f32; TABLE], idx: &[i32; LOOKUPS]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let f = ctx.load_module(compile_ptx(GATHER_SRC)?)?.load_function("gather")?;
    let mut out = vec![0.0f32; LOOKUPS];
    let (mut d_table, mut d_idx, mut d_out): (*mut c_void, *mut c_void, *mut c_void) = (std::ptr::null_mut(), std::ptr::null_mut(), std::ptr::null_mut());
    let mut n = LOOKUPS as i32;
    unsafe {
        cudaMalloc(&mut d_table, TABLE * size_of::<f32>());
        cudaMalloc(&mut d_idx, LOOKUPS * size_of::<i32>());
        cudaMalloc(&mut d_out, LOOKUPS * size_of::<f32>());
        cudaMemcpy(d_table, table.as_ptr() as *const c_void, TABLE * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        cudaMemcpy(d_idx, idx.as_ptr() as *const c_void, LOOKUPS * size_of::<i32>(), cudaMemcpyKind::cudaMemcpyHostToDevice);
        let (mut pt, mut pi, mut po) = (d_table as CUdeviceptr, d_idx as CUdeviceptr, d_out as CUdeviceptr);
        let mut params: [*mut c_void; 4] = [
            &mut pt as *mut CUdeviceptr as *mut c_void,
            &mut pi as *mut CUdeviceptr as *mut c_void,
            &mut po as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(f.cu_function(), (LOOKUPS / 256) as u32, 1, 1, 256, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cudaMemcpy(out.as_mut_ptr() as *mut c_void, d_out, LOOKUPS * size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        cudaFree(d_table);
        cudaFree(d_idx);
        cudaFree(d_out);
    }
    Ok(out)
}
