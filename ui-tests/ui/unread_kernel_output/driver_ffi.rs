// unread_kernel_output through the driver API's raw bindings (`cudarc::driver::sys` and a crate's
// own `extern "C"` block): memory a `cuLaunchKernel` stored into, then `cuMemFree_v2`'d with no
// `cuMemcpyDtoH_v2` of it since the launch: the copy back left out, made from the input, made
// before the launch, or the buffer written again by a later kernel; near misses: copied back,
// reduced by a second kernel whose total is copied back, a buffer the kernel only reads, a
// library function given it, a device-to-device copy copied back, a buffer only memset.
#![cfg_attr(cuda_lint, warn(cuda_lint::unread_kernel_output))]
#![cfg_attr(cuda_lint, allow(cuda_lint::relies_on_implicit_sync))] // another lint's subject: frees right after the launch

use std::error::Error;
use std::ffi::{CString, c_char, c_int, c_uint, c_void};

use cudarc::driver::sys;
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

extern "C" __global__ void fill(float* out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}

extern "C" __global__ void sum(const float* in, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}
"#;

// The crate's own declarations of the driver functions it uses.
pub type CUdeviceptr = u64;
pub type CUmodule = *mut c_void;
pub type CUfunction = *mut c_void;
pub type CUstream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuMemAlloc_v2(dptr: *mut CUdeviceptr, bytesize: usize) -> c_int;
    fn cuMemcpyHtoD_v2(dst: CUdeviceptr, src: *const c_void, bytes: usize) -> c_int;
    fn cuMemcpyDtoH_v2(dst: *mut c_void, src: CUdeviceptr, bytes: usize) -> c_int;
    fn cuMemsetD32_v2(dst: CUdeviceptr, value: c_uint, count: usize) -> c_int;
    fn cuMemFree_v2(dptr: CUdeviceptr) -> c_int;
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> c_int;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const c_char) -> c_int;
    fn cuModuleUnload(module: CUmodule) -> c_int;
    fn cuLaunchKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> c_int;
}

// A library function whose body the analysis cannot see.
#[link(name = "checkpoint")]
unsafe extern "C" {
    fn checkpoint_device_buffer(ptr: CUdeviceptr, bytes: usize) -> c_int;
}

fn init_context() {
    let mut dev: sys::CUdevice = 0;
    let mut ctx: sys::CUcontext = std::ptr::null_mut();
    unsafe {
        sys::cuInit(0);
        sys::cuDeviceGet(&mut dev, 0);
        sys::cuDevicePrimaryCtxRetain(&mut ctx, dev);
        sys::cuCtxSetCurrent(ctx);
    }
}

// DRACC 012: the result's copy back is left out; the host prints its own old array.
fn fires_free_without_copy_back() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
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
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
    println!("{}", h[0]);
    Ok(())
}

// The copy back reads the input buffer instead of the output.
fn fires_input_copied_back_instead() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut result = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, d_in, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// The copy back is made before the launch: it reads the zeros, not the result.
fn fires_copy_back_before_launch() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut result = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(d_out, 0, N);
        sys::cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, d_out, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        //~^ unread_kernel_output
        sys::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// The same mistake through the crate's own `extern "C"` declarations.
fn fires_own_extern_free() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut fill: CUfunction = std::ptr::null_mut();
    let mut d: CUdeviceptr = 0;
    let mut v = 1.0f32;
    let mut n = N as c_int;
    unsafe {
        cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        cuModuleGetFunction(&mut fill, module, c"fill".as_ptr());
        cuMemAlloc_v2(&mut d, BYTES);
        let mut params = [&mut d as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        cuLaunchKernel(fill, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cuMemFree_v2(d);
        //~^ unread_kernel_output
        cuModuleUnload(module);
    }
    Ok(())
}

// `tmp` is reduced and the total copied back, but `fill` then writes `tmp` again, unread.
fn fires_rewritten_after_reduction() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut total_host = 0.0f32;
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut sum: sys::CUfunction = std::ptr::null_mut();
    let mut fill: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut tmp: sys::CUdeviceptr = 0;
    let mut total: sys::CUdeviceptr = 0;
    let mut v = 0.0f32;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuModuleGetFunction(&mut sum, module, c"sum".as_ptr());
        sys::cuModuleGetFunction(&mut fill, module, c"fill".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut tmp, BYTES);
        sys::cuMemAlloc_v2(&mut total, std::mem::size_of::<f32>());
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(total, 0, 1);
        let mut scale_params = [&mut d_in as *mut _ as *mut c_void, &mut tmp as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), scale_params.as_mut_ptr(), std::ptr::null_mut());
        let mut sum_params = [&mut tmp as *mut _ as *mut c_void, &mut total as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(sum, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), sum_params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(&mut total_host as *mut f32 as *mut c_void, total, std::mem::size_of::<f32>());
        let mut fill_params = [&mut tmp as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(fill, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), fill_params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuCtxSynchronize();
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(tmp);
        //~^ unread_kernel_output
        sys::cuMemFree_v2(total);
        sys::cuModuleUnload(module);
    }
    println!("{total_host}");
    Ok(())
}

// Copied back before the free.
fn ok_copied_back() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut result = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// `sum` reads the scaled values; its total is copied back.
fn ok_reduced_and_copied_back() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut total_host = 0.0f32;
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut sum: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut tmp: sys::CUdeviceptr = 0;
    let mut total: sys::CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuModuleGetFunction(&mut sum, module, c"sum".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut tmp, BYTES);
        sys::cuMemAlloc_v2(&mut total, std::mem::size_of::<f32>());
        sys::cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(total, 0, 1);
        let mut scale_params = [&mut d_in as *mut _ as *mut c_void, &mut tmp as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), scale_params.as_mut_ptr(), std::ptr::null_mut());
        let mut sum_params = [&mut tmp as *mut _ as *mut c_void, &mut total as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(sum, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), sum_params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(&mut total_host as *mut f32 as *mut c_void, total, std::mem::size_of::<f32>());
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(tmp);
        sys::cuMemFree_v2(total);
        sys::cuModuleUnload(module);
    }
    println!("{total_host}");
    Ok(())
}

// Through the crate's own declarations: the freed buffer is the input, which `scale` only reads.
fn ok_input_only_read() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut module: CUmodule = std::ptr::null_mut();
    let mut scale: CUfunction = std::ptr::null_mut();
    let mut d_in: CUdeviceptr = 0;
    let mut d_out: CUdeviceptr = 0;
    let mut n = N as c_int;
    unsafe {
        cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        cuMemAlloc_v2(&mut d_in, BYTES);
        cuMemAlloc_v2(&mut d_out, BYTES);
        cuMemcpyHtoD_v2(d_in, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, d_out, BYTES);
        cuMemFree_v2(d_in);
        cuMemFree_v2(d_out);
        cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// A library function the analysis cannot see reads the result before the free.
fn ok_library_reads_result() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut module: CUmodule = std::ptr::null_mut();
    let mut fill: CUfunction = std::ptr::null_mut();
    let mut d: CUdeviceptr = 0;
    let mut v = 1.0f32;
    let mut n = N as c_int;
    unsafe {
        cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        cuModuleGetFunction(&mut fill, module, c"fill".as_ptr());
        cuMemAlloc_v2(&mut d, BYTES);
        let mut params = [&mut d as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        cuLaunchKernel(fill, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        checkpoint_device_buffer(d, BYTES);
        cuMemFree_v2(d);
        cuModuleUnload(module);
    }
    Ok(())
}

// Copied device-to-device into a staging buffer, which is copied back.
fn ok_dtod_into_staging() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut result = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut fill: sys::CUfunction = std::ptr::null_mut();
    let mut d: sys::CUdeviceptr = 0;
    let mut staging: sys::CUdeviceptr = 0;
    let mut v = 1.0f32;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut fill, module, c"fill".as_ptr());
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemAlloc_v2(&mut staging, BYTES);
        let mut params = [&mut d as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(fill, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoD_v2(staging, d, BYTES);
        sys::cuMemFree_v2(d);
        sys::cuMemcpyDtoH_v2(result.as_mut_ptr() as *mut c_void, staging, BYTES);
        sys::cuMemFree_v2(staging);
        sys::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// Only a memset wrote the buffer: no kernel output to lose.
fn ok_memset_only() {
    let mut d: CUdeviceptr = 0;
    unsafe {
        cuMemAlloc_v2(&mut d, BYTES);
        cuMemsetD32_v2(d, 0, N);
        cuMemFree_v2(d);
    }
}

fn main() {}
