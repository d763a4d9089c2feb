// uninitialized_device_read through the driver API's raw bindings: `cudarc::driver::sys` and a
// crate's own `extern "C"` block. `cuMemAlloc_v2` memory read by `cuMemcpyDtoH_v2`,
// `cuMemcpyDtoD_v2` or a `cuLaunchKernel` of a kernel that only loads through the parameter;
// near misses: `cuMemsetD32_v2` (all or part), `cuMemcpyHtoD_v2`, an init kernel, an in-place
// kernel, cuRAND filling it, `cuMemAllocManaged`.

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

extern "C" __global__ void axpy(float a, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
}

extern "C" __global__ void add(const float* a, const float* b, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
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
    fn cuMemFree_v2(dptr: CUdeviceptr) -> c_int;
    fn cuModuleLoadData(module: *mut CUmodule, image: *const c_void) -> c_int;
    fn cuModuleGetFunction(f: *mut CUfunction, module: CUmodule, name: *const c_char) -> c_int;
    fn cuModuleUnload(module: CUmodule) -> c_int;
    fn cuLaunchKernel(f: CUfunction, gx: c_uint, gy: c_uint, gz: c_uint, bx: c_uint, by: c_uint, bz: c_uint, shared: c_uint, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> c_int;
}

// cuRAND, a library whose bodies the analysis cannot see.
#[link(name = "curand")]
unsafe extern "C" {
    fn curandCreateGenerator(generator: *mut *mut c_void, rng_type: c_int) -> c_int;
    fn curandGenerateUniform(generator: *mut c_void, out: *mut f32, num: usize) -> c_int;
    fn curandDestroyGenerator(generator: *mut c_void) -> c_int;
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

// Allocated and copied straight back.
fn fires_dtoh_without_upload() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut d: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        //~^ uninitialized_device_read
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
    Ok(())
}

// DRACC 010: `a` is uploaded, `b` is not, and `add` loads from both.
fn fires_kernel_reads_never_uploaded() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let ha = [1.0f32; N];
    let mut hc = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut add: sys::CUfunction = std::ptr::null_mut();
    let (mut a, mut b, mut c): (sys::CUdeviceptr, sys::CUdeviceptr, sys::CUdeviceptr) = (0, 0, 0);
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut add, module, c"add".as_ptr());
        sys::cuMemAlloc_v2(&mut a, BYTES);
        sys::cuMemAlloc_v2(&mut b, BYTES);
        sys::cuMemAlloc_v2(&mut c, BYTES);
        sys::cuMemcpyHtoD_v2(a, ha.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut a as *mut _ as *mut c_void, &mut b as *mut _ as *mut c_void, &mut c as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(add, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        //~^ uninitialized_device_read
        sys::cuMemcpyDtoH_v2(hc.as_mut_ptr() as *mut c_void, c, BYTES);
        sys::cuMemFree_v2(a);
        sys::cuMemFree_v2(b);
        sys::cuMemFree_v2(c);
        sys::cuModuleUnload(module);
    }
    println!("{}", hc[0]);
    Ok(())
}

// The upload went into the output buffer instead of the input the kernel loads from.
fn fires_upload_went_to_output() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = [1.0f32; N];
    let mut out_host = [0.0f32; N];
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
        sys::cuMemcpyHtoD_v2(d_out, h.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        //~^ uninitialized_device_read
        sys::cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// A device-to-device copy out of a buffer nothing wrote.
fn fires_dtod_from_unwritten() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut src: sys::CUdeviceptr = 0;
    let mut dst: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut src, BYTES);
        sys::cuMemAlloc_v2(&mut dst, BYTES);
        sys::cuMemsetD32_v2(dst, 0, N);
        sys::cuMemcpyDtoD_v2(dst, src, BYTES);
        //~^ uninitialized_device_read
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, dst, BYTES);
        sys::cuMemFree_v2(src);
        sys::cuMemFree_v2(dst);
    }
    println!("{}", host[0]);
    Ok(())
}

// The same copy-out through the crate's own `extern "C"` declarations.
fn fires_own_extern_dtoh() -> Result<(), Box<dyn Error>> {
    let mut host = vec![0.0f32; N];
    let mut d: CUdeviceptr = 0;
    unsafe {
        cuMemAlloc_v2(&mut d, BYTES);
        cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        //~^ uninitialized_device_read
        cuMemFree_v2(d);
    }
    println!("{}", host[0]);
    Ok(())
}

// A kernel launch through the crate's own declarations reads an unwritten input.
fn fires_own_extern_kernel() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut out_host = vec![0.0f32; N];
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
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        //~^ uninitialized_device_read
        cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES);
        cuMemFree_v2(d_in);
        cuMemFree_v2(d_out);
        cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// A memset first.
fn ok_memset_d32_first() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut d: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemsetD32_v2(d, 0, N);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
    Ok(())
}

// A memset of the first 16 elements only: a write of part counts as a write.
fn ok_partial_memset() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut d: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAlloc_v2(&mut d, BYTES);
        sys::cuMemsetD32_v2(d, 0, 16);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
    Ok(())
}

// Uploaded through the crate's own declarations before the kernel reads it.
fn ok_htod_before_kernel() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut out_host = vec![0.0f32; N];
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
        cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES);
        cuMemFree_v2(d_in);
        cuMemFree_v2(d_out);
        cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// `fill` stores through the buffer before `scale` loads from it.
fn ok_init_kernel_first() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut out_host = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut fill: sys::CUfunction = std::ptr::null_mut();
    let mut scale: sys::CUfunction = std::ptr::null_mut();
    let mut d_in: sys::CUdeviceptr = 0;
    let mut d_out: sys::CUdeviceptr = 0;
    let mut v = 1.0f32;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut fill, module, c"fill".as_ptr());
        sys::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let mut fill_params = [&mut d_in as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(fill, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), fill_params.as_mut_ptr(), std::ptr::null_mut());
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(scale, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        sys::cuModuleUnload(module);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// `axpy` reads and writes `y` in place: no finding, though `y` was never initialized.
fn ok_in_place_kernel() -> Result<(), Box<dyn Error>> {
    init_context();
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let hx = [1.0f32; N];
    let mut hy = [0.0f32; N];
    let mut module: sys::CUmodule = std::ptr::null_mut();
    let mut axpy: sys::CUfunction = std::ptr::null_mut();
    let mut x: sys::CUdeviceptr = 0;
    let mut y: sys::CUdeviceptr = 0;
    let mut alpha = 2.0f32;
    let mut n = N as c_int;
    unsafe {
        sys::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        sys::cuModuleGetFunction(&mut axpy, module, c"axpy".as_ptr());
        sys::cuMemAlloc_v2(&mut x, BYTES);
        sys::cuMemAlloc_v2(&mut y, BYTES);
        sys::cuMemcpyHtoD_v2(x, hx.as_ptr() as *const c_void, BYTES);
        let mut params = [&mut alpha as *mut _ as *mut c_void, &mut x as *mut _ as *mut c_void, &mut y as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cuLaunchKernel(axpy, GRID, 1, 1, BLOCK, 1, 1, 0, std::ptr::null_mut(), params.as_mut_ptr(), std::ptr::null_mut());
        sys::cuMemcpyDtoH_v2(hy.as_mut_ptr() as *mut c_void, y, BYTES);
        sys::cuMemFree_v2(x);
        sys::cuMemFree_v2(y);
        sys::cuModuleUnload(module);
    }
    println!("{}", hy[0]);
    Ok(())
}

// cuRAND fills the buffer: a call the analysis cannot see was given the pointer.
fn ok_curand_fills() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut generator: *mut c_void = std::ptr::null_mut();
    let mut d: sys::CUdeviceptr = 0;
    unsafe {
        curandCreateGenerator(&mut generator, 100);
        sys::cuMemAlloc_v2(&mut d, BYTES);
        curandGenerateUniform(generator, d as *mut f32, N);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
        curandDestroyGenerator(generator);
    }
    println!("{}", host[0]);
    Ok(())
}

// Managed memory is out of the lint's scope.
fn ok_managed_memory() -> Result<(), Box<dyn Error>> {
    init_context();
    let mut host = [0.0f32; N];
    let mut d: sys::CUdeviceptr = 0;
    unsafe {
        sys::cuMemAllocManaged(&mut d, BYTES, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as c_uint);
        sys::cuMemcpyDtoH_v2(host.as_mut_ptr() as *mut c_void, d, BYTES);
        sys::cuMemFree_v2(d);
    }
    println!("{}", host[0]);
    Ok(())
}

fn main() {}
