// unread_kernel_output across helpers, branches, loops and struct fields (driver API raw
// bindings): the free in a helper the case calls, the launch in a helper, a struct's output
// field freed while its input is copied back, a loop of launches and no copy after it, neither
// branch copying the result back; near misses: copied back on one branch, the copy back in a
// helper, copied back in the loop after each launch, the result returned to the caller, a
// release function no visible code calls.
#![cfg_attr(cuda_lint, warn(cuda_lint::unread_kernel_output))]

use std::ffi::{CString, c_int, c_uint, c_void};

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::nvrtc::compile_ptx;

const N: usize = 1024;
const BYTES: usize = N * std::mem::size_of::<f32>();
const BLOCK: c_uint = 256;
const GRID: c_uint = (N as c_uint).div_ceil(BLOCK);

const SRC: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}
"#;

struct Buffers {
    input: CUdeviceptr,
    output: CUdeviceptr,
}

fn release(d: CUdeviceptr) {
    unsafe { sys::cuMemFree_v2(d) };
}

fn download(d: CUdeviceptr, host: &mut [f32]) {
    unsafe { sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, std::mem::size_of_val(host)) };
}

fn launch_scale(module: sys::CUmodule, mut input: CUdeviceptr, mut output: CUdeviceptr) {
    let mut f: sys::CUfunction = std::ptr::null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleGetFunction(&mut f, module, c"scale".as_ptr());
        let mut params = [&mut input as *mut _ as *mut c_void, &mut output as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(f, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
    }
}

fn load_module() -> sys::CUmodule {
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let mut module: sys::CUmodule = std::ptr::null_mut();
    unsafe { sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void) };
    module
}

// The free is in a helper; the finding is at the call.
fn fires_free_in_helper() {
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let h = vec![1.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuCtxSynchronize();
    }
    release(d_in);
    release(d_out);
    //~^ unread_kernel_output
    unsafe { sys::cuModuleUnload(module) };
}

// The launch is in a helper; the case frees the result without copying it back.
fn fires_launch_in_helper() {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, d_in, d_out);
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
}

// A struct's output field is freed; the copy back was made from its input field.
fn fires_struct_output_field() {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut b = Buffers { input: 0, output: 0 };
    unsafe {
        sys::cuMemAlloc_v2(&mut b.input, BYTES);
        sys::cuMemAlloc_v2(&mut b.output, BYTES);
        sys::cuMemcpyHtoD_v2(b.input, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, b.input, b.output);
    unsafe {
        sys::cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, b.input, BYTES);
        sys::cuMemFree_v2(b.input);
        sys::cuMemFree_v2(b.output);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
    println!("{}", result[0]);
}

// A loop of launches and no copy back after it.
// Known miss: the loop may run no round, and on that path no kernel wrote the buffer; output is
// followed only where every path wrote it (see LINTS.md, Known problems).
fn known_miss_loop_of_launches_then_free(iterations: usize) {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    for _ in 0..iterations {
        launch_scale(module, d_in, d_out);
    }
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
}

// Neither branch copies the result back (one copies the input).
fn fires_neither_branch_copies_back(verbose: bool) {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, d_in, d_out);
    if verbose {
        download(d_in, &mut host);
        println!("{}", host[0]);
    } else {
        println!("done");
    }
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
}

// Copied back on one branch: some path reads the result.
fn ok_copied_back_on_one_branch(verbose: bool) {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, d_in, d_out);
    if verbose {
        download(d_out, &mut host);
        println!("{}", host[0]);
    }
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
}

// The copy back is in a helper the case calls before the free.
fn ok_copy_back_in_helper() {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut b = Buffers { input: 0, output: 0 };
    unsafe {
        sys::cuMemAlloc_v2(&mut b.input, BYTES);
        sys::cuMemAlloc_v2(&mut b.output, BYTES);
        sys::cuMemcpyHtoD_v2(b.input, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, b.input, b.output);
    download(b.output, &mut host);
    release(b.input);
    release(b.output);
    unsafe { sys::cuModuleUnload(module) };
    println!("{}", host[0]);
}

// Copied back after every launch of the loop.
fn ok_copied_back_in_loop(iterations: usize) {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    for _ in 0..iterations {
        launch_scale(module, d_in, d_out);
        download(d_out, &mut host);
        println!("{}", host[0]);
    }
    unsafe {
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
}

// The result is returned to the caller: code the analysis cannot see may read it.
fn ok_result_returned_to_caller() -> CUdeviceptr {
    let module = load_module();
    let h = vec![1.0f32; N];
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
    }
    launch_scale(module, d_in, d_out);
    unsafe {
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuModuleUnload(module);
    }
    d_out
}

// A release function no visible code calls: no kernel write reaches its free.
fn ok_release_never_called(b: Buffers) {
    unsafe {
        sys::cuMemFree_v2(b.input);
        sys::cuMemFree_v2(b.output);
    }
}

fn main() {}
