// unread_kernel_output through the runtime API (`cudarc::runtime::sys`): `cudaMalloc` memory a
// kernel (`cudaLaunchKernel` of a `cudaLibraryGetKernel` handle, or `cuLaunchKernel`) stored
// into, then `cudaFree`/`cudaFreeAsync`'d with no `cudaMemcpy` out of it since the launch;
// near misses: copied back (`cudaMemcpyDeviceToHost`, `cudaMemcpyDefault`, `cudaMemcpyAsync`
// into pinned memory), reduced by a second kernel whose total is copied back, read by cuBLAS,
// a buffer the kernel only reads.
#![cfg_attr(cuda_lint, warn(cuda_lint::unread_kernel_output))]
#![cfg_attr(cuda_lint, allow(cuda_lint::relies_on_implicit_sync))] // another lint's subject: frees right after the launch

use std::error::Error;
use std::ffi::{CString, c_int, c_void};
use std::ptr::null_mut;

use cudarc::cublas::sys as cublas;
use cudarc::driver::sys as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys::{self, cudaMemcpyKind, dim3};

const N: usize = 1024;
const BYTES: usize = N * std::mem::size_of::<f32>();
const GRID: dim3 = dim3 { x: 4, y: 1, z: 1 };
const BLOCK: dim3 = dim3 { x: 256, y: 1, z: 1 };

const SRC: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

extern "C" __global__ void sum(const float* in, float* total, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(total, in[i]);
}
"#;

// DRACC 012: the copy back is left out; the host prints its own stale array.
fn fires_cuda_free_without_copy_back() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        //~^ unread_kernel_output
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", h[0]);
    Ok(())
}

// The copy back reads the input instead of the output.
fn fires_input_copied_back_instead() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_in, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        //~^ unread_kernel_output
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", result[0]);
    Ok(())
}

// The copy back comes before the launch (driver launch of runtime memory).
fn fires_copy_back_before_launch() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut module: drv::CUmodule = null_mut();
    let mut scale: drv::CUfunction = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaFree(null_mut());
        drv::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        drv::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemset(d_out, 0, BYTES);
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        drv::cuLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cudaDeviceSynchronize();
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        //~^ unread_kernel_output
        drv::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// Stream-ordered: the result is released with `cudaFreeAsync` and never copied out.
fn fires_free_async_without_copy_back() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut stream: sys::cudaStream_t = null_mut();
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaStreamCreate(&mut stream);
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMallocAsync(&mut d_in, BYTES, stream);
        sys::cudaMallocAsync(&mut d_out, BYTES, stream);
        sys::cudaMemsetAsync(d_in, 0, BYTES, stream);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, stream);
        sys::cudaFreeAsync(d_in, stream);
        sys::cudaFreeAsync(d_out, stream);
        //~^ unread_kernel_output
        sys::cudaStreamSynchronize(stream);
        sys::cudaStreamDestroy(stream);
        sys::cudaLibraryUnload(lib);
    }
    Ok(())
}

// An atomic total is output too; it is freed unread.
fn fires_atomic_total_freed() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut sum: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut total: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut sum, lib, c"sum".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut total, std::mem::size_of::<f32>());
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemset(total, 0, std::mem::size_of::<f32>());
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut total as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(sum as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaDeviceSynchronize();
        sys::cudaFree(d_in);
        sys::cudaFree(total);
        //~^ unread_kernel_output
        sys::cudaLibraryUnload(lib);
    }
    Ok(())
}

// Copied back before the free.
fn ok_copied_back() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", result[0]);
    Ok(())
}

// Copied back with `cudaMemcpyDefault`: the memory kinds make it a copy out.
fn ok_default_kind_copy_back() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyDefault);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDefault);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", result[0]);
    Ok(())
}

// `sum` reads the scaled values; its total is copied back.
fn ok_reduced_and_copied_back() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut total_host = 0.0f32;
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut sum: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut tmp: *mut c_void = null_mut();
    let mut total: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaLibraryGetKernel(&mut sum, lib, c"sum".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut tmp, BYTES);
        sys::cudaMalloc(&mut total, std::mem::size_of::<f32>());
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemset(total, 0, std::mem::size_of::<f32>());
        let mut scale_args = [&mut d_in as *mut _ as *mut c_void, &mut tmp as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, scale_args.as_mut_ptr(), 0, null_mut());
        let mut sum_args = [&mut tmp as *mut _ as *mut c_void, &mut total as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(sum as *const c_void, GRID, BLOCK, sum_args.as_mut_ptr(), 0, null_mut());
        sys::cudaMemcpy(&mut total_host as *mut f32 as *mut c_void, total, std::mem::size_of::<f32>(), cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(tmp);
        sys::cudaFree(total);
        sys::cudaLibraryUnload(lib);
    }
    println!("{total_host}");
    Ok(())
}

// The freed buffer is the kernel's input (driver launch of runtime memory); the output is copied.
fn ok_input_only_read() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut result = vec![0.0f32; N];
    let mut module: drv::CUmodule = null_mut();
    let mut scale: drv::CUfunction = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaFree(null_mut());
        drv::cuModuleLoadData(&mut module, ptx.as_ptr() as *const c_void);
        drv::cuModuleGetFunction(&mut scale, module, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut params = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        drv::cuLaunchKernel(scale, 4, 1, 1, 256, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cudaFree(d_in);
        sys::cudaMemcpy(result.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_out);
        drv::cuModuleUnload(module);
    }
    println!("{}", result[0]);
    Ok(())
}

// cuBLAS reads the result (a call the analysis cannot see) before the free.
fn ok_read_by_cublas() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut norm1 = 0.0f32;
    let mut handle: cublas::cublasHandle_t = null_mut();
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        cublas::cublasCreate_v2(&mut handle);
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        sys::cudaMemcpy(d_in, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        cublas::cublasSasum_v2(handle, n, d_out as *const f32, 1, &mut norm1);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
        cublas::cublasDestroy_v2(handle);
    }
    println!("{norm1}");
    Ok(())
}

// Stream-ordered: copied back into pinned memory on the stream before `cudaFreeAsync`.
fn ok_copy_async_to_pinned_before_free_async() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut stream: sys::cudaStream_t = null_mut();
    let mut pinned: *mut c_void = null_mut();
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut n = N as c_int;
    unsafe {
        sys::cudaStreamCreate(&mut stream);
        sys::cudaMallocHost(&mut pinned, BYTES);
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMallocAsync(&mut d_in, BYTES, stream);
        sys::cudaMallocAsync(&mut d_out, BYTES, stream);
        sys::cudaMemsetAsync(d_in, 0, BYTES, stream);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, stream);
        sys::cudaMemcpyAsync(pinned, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        sys::cudaFreeAsync(d_in, stream);
        sys::cudaFreeAsync(d_out, stream);
        sys::cudaStreamSynchronize(stream);
        println!("{}", *(pinned as *const f32));
        sys::cudaFreeHost(pinned);
        sys::cudaStreamDestroy(stream);
        sys::cudaLibraryUnload(lib);
    }
    Ok(())
}

fn main() {}
