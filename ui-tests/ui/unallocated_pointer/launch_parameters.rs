// Kernel arguments given to `cuLaunchKernel` the way its parameter array asks: a pointer to each
// argument's value (`&mut d as *mut _ as *mut c_void`). The driver only reads those values, so
// a variable that stays 0 is still a null pointer when the kernel runs; near misses: the array
// handed to another function (which may write through it), the variable allocated first, and a
// kernel that tests the argument for null.
use cudarc::driver::CudaContext;
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUmodule};
use cudarc::nvrtc::compile_ptx;
use std::ffi::{CString, c_void};
use std::mem::size_of;
use std::ptr;

unsafe extern "C" {
    /// A library function that fills a parameter array (its body is not visible).
    fn fill_launch_params(params: *mut *mut c_void, count: usize);
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

fn load_module() -> Result<CUmodule, Box<dyn std::error::Error>> {
    let ptx = CString::new(compile_ptx(KERNELS)?.to_src())?;
    let mut module: CUmodule = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
    }
    Ok(module)
}

// The output's allocation was left out: `scale` stores through the 0 it was given.
fn fires_output_never_allocated() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
    }
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as i32;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_in, BYTES);
        let _ = sys::cuMemsetD32_v2(d_in, 0, N);
        let mut params: [*mut c_void; 3] = [
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        //~^ unallocated_pointer
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(d_in);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

// The input's allocation was left out: `scale` loads from the 0 it was given, and the copy
// back reads it too.
fn fires_input_never_allocated_and_read_back() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
    }
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as i32;
    let mut host = vec![0.0f32; N];
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let mut params: [*mut c_void; 3] = [
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        //~^ unallocated_pointer
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d_in, BYTES);
        //~^ unallocated_pointer
        let _ = sys::cuMemFree_v2(d_out);
        let _ = sys::cuModuleUnload(module);
    }
    println!("{}", host[0]);
    Ok(())
}

// The parameter array goes to a function whose body is not visible before the launch: it may
// write `d_out` through it. Not known to be null.
fn ok_params_handed_to_an_unseen_function() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
    }
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as i32;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_in, BYTES);
        let _ = sys::cuMemsetD32_v2(d_in, 0, N);
        let mut params: [*mut c_void; 3] = [
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        fill_launch_params(params.as_mut_ptr(), 3);
        let _ = sys::cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(d_in);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

// Both buffers are allocated before the launch.
fn ok_every_argument_allocated() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
    }
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as i32;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_in, BYTES);
        let _ = sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let _ = sys::cuMemsetD32_v2(d_in, 0, N);
        let mut params: [*mut c_void; 3] = [
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(d_out);
        let _ = sys::cuMemFree_v2(d_in);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

// `add_bias` tests `bias` before it reads it: a 0 bias is an optional argument left out.
fn ok_optional_argument_tested_by_the_kernel() -> Result<(), Box<dyn std::error::Error>> {
    let _ctx = CudaContext::new(0)?;
    let module = load_module()?;
    let mut f: CUfunction = ptr::null_mut();
    unsafe {
        let _ = sys::cuModuleGetFunction(&mut f, module, c"add_bias".as_ptr());
    }
    let mut d_out: CUdeviceptr = 0;
    let mut d_bias: CUdeviceptr = 0;
    let mut n = N as i32;
    unsafe {
        let _ = sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let _ = sys::cuMemsetD32_v2(d_out, 0, N);
        let mut params: [*mut c_void; 3] = [
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut d_bias as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let _ = sys::cuLaunchKernel(f, 16, 1, 1, 256, 1, 1, 0, ptr::null_mut(), params.as_mut_ptr(), ptr::null_mut());
        let _ = sys::cuCtxSynchronize();
        let _ = sys::cuMemFree_v2(d_out);
        let _ = sys::cuModuleUnload(module);
    }
    Ok(())
}

fn main() {}
