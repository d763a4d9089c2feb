// unallocated_pointer through the driver API's raw bindings: `cudarc::driver::sys` and the
// crate's own `extern "C"` block declaring cuMemAlloc_v2 and kin. A `CUdeviceptr` of 0 never
// passed to an allocation, or a `static mut` nothing assigns, given to cuMemcpyHtoD_v2,
// cuMemcpyDtoH_v2, cuMemcpyDtoD_v2, cuMemsetD32_v2, or as a kernel argument to cuLaunchKernel
// of a kernel compiled from the string below (loaded by a constant name) that dereferences the
// parameter without testing it. Near misses: cuMemAlloc into it first (also through the
// static's address), an allocating helper the crate defines, the address handed to an extern
// function that is not a CUDA API, cuMemFree of 0, a kernel that tests its optional pointer.

use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{CString, c_void};
use std::mem::size_of;
use std::ptr;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAlloc_v2(dptr: *mut u64, bytesize: usize) -> u32;
    fn cuMemFree_v2(dptr: u64) -> u32;
    fn cuMemcpyHtoD_v2(dst: u64, src: *const c_void, byte_count: usize) -> u32;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: u64, byte_count: usize) -> u32;
    fn cuMemsetD32_v2(dst: u64, ui: u32, n: usize) -> u32;
}

// The application's own buffer pool, implemented elsewhere (not a CUDA API).
unsafe extern "C" {
    fn pool_acquire(out: *mut u64, bytes: usize) -> i32;
    fn pool_release(p: u64);
}

const N: usize = 4096;
const BYTES: usize = N * size_of::<f32>();

const KERNELS: &str = r#"
extern "C" __global__ void scale(float *out, const float *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}

extern "C" __global__ void add_bias(float *out, const float *bias, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && bias) {
        out[i] += bias[i];
    }
}
"#;

static mut D_RESULT: u64 = 0;
static mut D_STATE: CUdeviceptr = 0;

fn load_module() -> Result<CUmodule, Box<dyn std::error::Error>> {
    let ptx = compile_ptx(KERNELS)?;
    let image = CString::new(ptx.to_src())?;
    let mut module: CUmodule = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleLoadData(&mut module, image.as_ptr() as *const c_void);
    }
    Ok(module)
}

fn alloc(p: &mut CUdeviceptr, bytes: usize) {
    unsafe {
        let _ = sys::cuMemAlloc_v2(p, bytes);
    }
}

// DRACC 008: d_b's cuMemAlloc was left out; its copy is still there.
fn fires_htod_missing_allocation() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let a = vec![1.0f32; N];
    let b = vec![2.0f32; N];
    let mut d_a: CUdeviceptr = 0;
    let d_b: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_a, BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d_a, a.as_ptr() as *const c_void, BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d_b, b.as_ptr() as *const c_void, BYTES);
        //~^ unallocated_pointer
        let _ = sys::cuMemFree_v2(d_a);
    }
    Ok(())
}

fn fires_memset_d32_zero_dptr() {
    let d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemsetD32_v2(d, 0, N);
        //~^ unallocated_pointer
    }
}

fn fires_dtod_from_zero_dptr() {
    let mut dst: CUdeviceptr = 0;
    let src: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut dst, BYTES);
        let _ = sys::cuMemcpyDtoD_v2(dst, src, BYTES);
        //~^ unallocated_pointer
        let _ = sys::cuMemFree_v2(dst);
    }
}

// `scale` reads `in[i]` without testing it; the input pointer is 0.
fn fires_cu_launch_kernel_null_input() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    let mut out: CUdeviceptr = 0;
    let input: CUdeviceptr = 0;
    let n = N as i32;
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
        let _ = sys::cuMemAlloc_v2(&mut out, BYTES);
        let mut params: [*mut c_void; 3] = [
            &out as *const CUdeviceptr as *mut c_void,
            &input as *const CUdeviceptr as *mut c_void,
            &n as *const i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, (N / 256) as u32, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        //~^ unallocated_pointer
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(out);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

// Own extern block: a static nothing assigns, copied back to the host.
fn fires_own_extern_dtoh_from_static() {
    let mut host = vec![0.0f32; N];
    unsafe {
        let _ = cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, D_RESULT, BYTES);
        //~^ unallocated_pointer
    }
    println!("{}", host[0]);
}

// Own extern block: the upload goes to a pointer left at 0.
fn fires_own_extern_htod_zero_dptr() {
    let host = [3.0f32; N];
    let d: u64 = 0;
    unsafe {
        let _ = cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES);
        //~^ unallocated_pointer
    }
}

fn ok_htod_after_cu_mem_alloc() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let a = vec![1.0f32; N];
    let mut d_a: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_a, BYTES);
        let _ = sys::cuMemcpyHtoD_v2(d_a, a.as_ptr() as *const c_void, BYTES);
        let _ = sys::cuMemFree_v2(d_a);
    }
    Ok(())
}

// Allocated through a helper the crate defines and calls.
fn ok_allocated_through_helper() {
    let host = vec![1.0f32; N];
    let mut d: CUdeviceptr = 0;
    alloc(&mut d, BYTES);
    unsafe {
        let _ = sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES);
        let _ = sys::cuMemFree_v2(d);
    }
}

// The address is handed to a function whose body is not visible: it may allocate.
fn ok_address_taken_by_opaque_call() {
    let host = vec![1.0f32; N];
    let mut d: u64 = 0;
    unsafe {
        let _ = pool_acquire(&mut d, BYTES);
        let _ = cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES);
        pool_release(d);
    }
}

// cuMemFree of 0 is not a use.
fn ok_cu_mem_free_of_zero() {
    let d: CUdeviceptr = 0;
    unsafe {
        let _ = sys::cuMemFree_v2(d);
    }
}

// `add_bias` tests `bias` before using it: 0 is an optional argument.
fn ok_cu_launch_kernel_optional_bias() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    let mut out: CUdeviceptr = 0;
    let bias: CUdeviceptr = 0;
    let n = N as i32;
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"add_bias".as_ptr());
        let _ = sys::cuMemAlloc_v2(&mut out, BYTES);
        let _ = sys::cuMemsetD32_v2(out, 0, N);
        let mut params: [*mut c_void; 3] = [
            &out as *const CUdeviceptr as *mut c_void,
            &bias as *const CUdeviceptr as *mut c_void,
            &n as *const i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, (N / 256) as u32, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(out);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

// The static is allocated through its address before the memset.
fn ok_own_extern_static_allocated_through_address() {
    unsafe {
        let _ = cuMemAlloc_v2(&raw mut D_STATE, BYTES);
        let _ = cuMemsetD32_v2(D_STATE, 0, N);
        let _ = cuMemFree_v2(D_STATE);
        D_STATE = 0;
    }
}

// Allocated only when enabled, and used under the same condition.
fn ok_own_extern_allocated_under_same_condition() {
    let enabled = std::env::var_os("USE_GPU").is_some();
    let mut d: u64 = 0;
    unsafe {
        if enabled {
            let _ = cuMemAlloc_v2(&mut d, BYTES);
        }
        if enabled {
            let _ = cuMemsetD32_v2(d, 0, N);
            let _ = cuMemFree_v2(d);
        }
    }
}

fn main() {}
