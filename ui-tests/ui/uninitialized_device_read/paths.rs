// uninitialized_device_read across helpers, branches, loops and struct fields (driver API raw
// bindings): a read reached through a helper the case calls, memory a helper allocated, a
// struct's unwritten field given to a kernel, a read on a loop's first round before the write
// later in the body, a copy in made after the copy out; near misses: the upload in a helper,
// written on one branch, the loop writes before it reads, a pointer from an unknown caller, a
// function the analysis cannot see given the pointer.

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

unsafe extern "C" {
    // A library function whose body the analysis cannot see.
    fn init_device_buffer(ptr: CUdeviceptr, count: usize) -> c_int;
}

struct Pipeline {
    input: CUdeviceptr,
    output: CUdeviceptr,
}

fn alloc_floats(count: usize) -> CUdeviceptr {
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, count * std::mem::size_of::<f32>()) };
    d
}

fn download(d: CUdeviceptr, host: &mut [f32]) {
    unsafe { sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, std::mem::size_of_val(host)) };
}

fn upload(d: CUdeviceptr, host: &[f32]) {
    unsafe { sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, std::mem::size_of_val(host)) };
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

// The copy out is in a helper; the finding is at the call.
fn fires_read_through_helper() {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    download(d, &mut host);
    //~^ uninitialized_device_read
    unsafe { sys::cuMemFree_v2(d) };
    println!("{}", host[0]);
}

// A helper allocates; the case reads what it returned.
fn fires_alloc_in_helper() {
    let mut host = vec![0.0f32; N];
    let d = alloc_floats(N);
    unsafe { sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES) };
    //~^ uninitialized_device_read
    unsafe { sys::cuMemFree_v2(d) };
    println!("{}", host[0]);
}

// A struct's `input` field is never uploaded; the upload went to `output`.
fn fires_struct_field_unwritten() {
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let h = vec![1.0f32; N];
    let mut out_host = vec![0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut p = Pipeline { input: 0, output: 0 };
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut p.input, BYTES);
        sys::cuMemAlloc_v2(&mut p.output, BYTES);
        sys::cuMemcpyHtoD_v2(p.output, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut p.input as *mut _ as *mut c_void, &mut p.output as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        //~^ uninitialized_device_read
        sys::cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, p.output, BYTES);
        sys::cuMemFree_v2(p.input);
        sys::cuMemFree_v2(p.output);
        sys::cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
}

// The loop's body reads the buffer before it writes it: the first round reads unwritten memory.
// Known miss: the state that enters the loop's body is joined with the round before, which wrote
// the buffer; the first round's read is not told apart (see LINTS.md, Known problems).
fn known_miss_read_before_write_in_loop() {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        for step in 0..4 {
            sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
            host.iter_mut().for_each(|x| *x += step as f32);
            sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES);
        }
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// Both branches initialize the other buffer; `d` is read unwritten on every path.
fn fires_both_branches_write_other_buffer(zero: bool) {
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    let mut other: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemAlloc_v2(&mut other, BYTES);
        if zero {
            sys::cuMemsetD32_v2(other, 0, N);
        } else {
            sys::cuMemcpyHtoD_v2(other, h.as_ptr() as *const c_void, BYTES);
        }
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        //~^ uninitialized_device_read
        sys::cuMemFree_v2(d);
        sys::cuMemFree_v2(other);
    }
    println!("{}", host[0]);
}

// The kernel is launched by a helper the case calls; its input was never uploaded.
fn fires_kernel_in_helper() {
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let mut out_host = vec![0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
    }
    launch_scale(module, d_in, d_out);
    //~^ uninitialized_device_read
    unsafe {
        sys::cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
}

// The upload is in a helper the case calls first.
fn ok_upload_in_helper() {
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let d = alloc_floats(N);
    upload(d, &h);
    download(d, &mut host);
    unsafe { sys::cuMemFree_v2(d) };
    println!("{}", host[0]);
}

// The loop writes before it reads, every round.
fn ok_write_then_read_in_loop() {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        for step in 0..4 {
            host.iter_mut().for_each(|x| *x += step as f32);
            sys::cuMemcpyHtoD_v2(d, host.as_ptr() as *const c_void, BYTES);
            sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        }
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// The struct's input field is uploaded before the kernel reads it.
fn ok_struct_field_uploaded() {
    let ptx = CString::new(compile_ptx(SRC).unwrap().to_src()).unwrap();
    let h = vec![1.0f32; N];
    let mut out_host = vec![0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut p = Pipeline { input: 0, output: 0 };
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut p.input, BYTES);
        sys::cuMemAlloc_v2(&mut p.output, BYTES);
        sys::cuMemcpyHtoD_v2(p.input, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut p.input as *mut _ as *mut c_void, &mut p.output as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, p.output, BYTES);
        sys::cuMemFree_v2(p.input);
        sys::cuMemFree_v2(p.output);
        sys::cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
}

// Written on one of two branches: some path writes it.
fn ok_written_on_one_branch(zero: bool) {
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        if zero {
            sys::cuMemsetD32_v2(d, 0, N);
        } else {
            host.copy_from_slice(&h);
        }
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// A function the analysis cannot see was given the pointer: it may have written it.
fn ok_given_to_unknown_function() {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        init_device_buffer(d, N);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
}

// The pointer comes from a caller the analysis cannot see.
fn ok_pointer_from_caller(d: CUdeviceptr, host: &mut [f32]) {
    unsafe { sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, std::mem::size_of_val(host)) };
}

fn main() {}
