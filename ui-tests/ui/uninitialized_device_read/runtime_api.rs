// uninitialized_device_read through the runtime API (`cudarc::runtime::sys`): `cudaMalloc` and
// `cudaMallocAsync` memory read by `cudaMemcpy`/`cudaMemcpyAsync` (device-to-host,
// device-to-device, `cudaMemcpyDefault`) or by `cudaLaunchKernel` of a kernel that only loads
// through the parameter; near misses: `cudaMemset(Async)` first, `cudaMemcpy` in first (even of
// part), an init kernel, written on one branch, `cudaMallocManaged`.

use std::error::Error;
use std::ffi::{CString, c_int, c_void};
use std::ptr::null_mut;

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

extern "C" __global__ void fill(float* out, float v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = v;
}
"#;

// Allocated and copied straight back.
fn fires_memcpy_d2h_without_upload() {
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut d, BYTES);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        //~^ uninitialized_device_read
        sys::cudaFree(d);
    }
    println!("{}", host[0]);
}

// `scale` loads from `in`, which nothing uploaded.
fn fires_kernel_reads_unwritten() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut out_host = vec![0.0f32; N];
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
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        //~^ uninitialized_device_read
        sys::cudaMemcpy(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// A device-to-device copy out of a buffer nothing wrote.
fn fires_memcpy_d2d_from_unwritten() {
    let mut host = vec![0.0f32; N];
    let mut src: *mut c_void = null_mut();
    let mut dst: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut src, BYTES);
        sys::cudaMalloc(&mut dst, BYTES);
        sys::cudaMemset(dst, 0, BYTES);
        sys::cudaMemcpy(dst, src, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToDevice);
        //~^ uninitialized_device_read
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, dst, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(src);
        sys::cudaFree(dst);
    }
    println!("{}", host[0]);
}

// `cudaMemcpyDefault`: the memory kinds make it a copy out of the device buffer.
fn fires_default_kind_copy_out() {
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut d, BYTES);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDefault);
        //~^ uninitialized_device_read
        sys::cudaFree(d);
    }
    println!("{}", host[0]);
}

// Stream-ordered allocation, copied out into pinned memory before anything wrote it.
fn fires_malloc_async_copy_out() {
    let mut stream: sys::cudaStream_t = null_mut();
    let mut pinned: *mut c_void = null_mut();
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaStreamCreate(&mut stream);
        sys::cudaMallocHost(&mut pinned, BYTES);
        sys::cudaMallocAsync(&mut d, BYTES, stream);
        sys::cudaMemcpyAsync(pinned, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        //~^ uninitialized_device_read
        sys::cudaFreeAsync(d, stream);
        sys::cudaStreamSynchronize(stream);
        println!("{}", *(pinned as *const f32));
        sys::cudaFreeHost(pinned);
        sys::cudaStreamDestroy(stream);
    }
}

// The input was uploaded into the output buffer: the kernel's input is still unwritten.
fn fires_upload_went_to_output() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut out_host = vec![0.0f32; N];
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
        sys::cudaMemcpy(d_out, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        //~^ uninitialized_device_read
        sys::cudaMemcpy(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// A memset first.
fn ok_memset_first() {
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut d, BYTES);
        sys::cudaMemset(d, 0, BYTES);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d);
    }
    println!("{}", host[0]);
}

// Uploaded before the kernel reads it.
fn ok_upload_before_kernel() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let h = vec![1.0f32; N];
    let mut out_host = vec![0.0f32; N];
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
        sys::cudaMemcpy(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// Only the first half is uploaded: a write of part of it counts.
fn ok_partial_upload() {
    let h = vec![1.0f32; N / 2];
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut d, BYTES);
        sys::cudaMemcpy(d, h.as_ptr() as *const c_void, BYTES / 2, cudaMemcpyKind::cudaMemcpyHostToDevice);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d);
    }
    println!("{}", host[0]);
}

// Written on one branch: some path writes it, no finding.
fn ok_written_on_one_branch(warm_start: bool) {
    let h = vec![1.0f32; N];
    let mut host = vec![0.0f32; N];
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaMalloc(&mut d, BYTES);
        if warm_start {
            sys::cudaMemcpy(d, h.as_ptr() as *const c_void, BYTES, cudaMemcpyKind::cudaMemcpyHostToDevice);
        }
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d);
    }
    println!("{}", host[0]);
}

// `fill` writes the input before `scale` reads it.
fn ok_init_kernel_first() -> Result<(), Box<dyn Error>> {
    let ptx = CString::new(compile_ptx(SRC)?.to_src())?;
    let mut out_host = vec![0.0f32; N];
    let mut lib: sys::cudaLibrary_t = null_mut();
    let mut fill: sys::cudaKernel_t = null_mut();
    let mut scale: sys::cudaKernel_t = null_mut();
    let mut d_in: *mut c_void = null_mut();
    let mut d_out: *mut c_void = null_mut();
    let mut v = 0.5f32;
    let mut n = N as c_int;
    unsafe {
        sys::cudaLibraryLoadData(&mut lib, ptx.as_ptr() as *const c_void, null_mut(), null_mut(), 0, null_mut(), null_mut(), 0);
        sys::cudaLibraryGetKernel(&mut fill, lib, c"fill".as_ptr());
        sys::cudaLibraryGetKernel(&mut scale, lib, c"scale".as_ptr());
        sys::cudaMalloc(&mut d_in, BYTES);
        sys::cudaMalloc(&mut d_out, BYTES);
        let mut fill_args = [&mut d_in as *mut _ as *mut c_void, &mut v as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(fill as *const c_void, GRID, BLOCK, fill_args.as_mut_ptr(), 0, null_mut());
        let mut args = [&mut d_in as *mut _ as *mut c_void, &mut d_out as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        sys::cudaLaunchKernel(scale as *const c_void, GRID, BLOCK, args.as_mut_ptr(), 0, null_mut());
        sys::cudaMemcpy(out_host.as_mut_ptr() as *mut c_void, d_out, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost);
        sys::cudaFree(d_in);
        sys::cudaFree(d_out);
        sys::cudaLibraryUnload(lib);
    }
    println!("{}", out_host[0]);
    Ok(())
}

// Stream-ordered allocation, memset on the same stream before the copy out.
fn ok_memset_async_first() {
    let mut stream: sys::cudaStream_t = null_mut();
    let mut pinned: *mut c_void = null_mut();
    let mut d: *mut c_void = null_mut();
    unsafe {
        sys::cudaStreamCreate(&mut stream);
        sys::cudaMallocHost(&mut pinned, BYTES);
        sys::cudaMallocAsync(&mut d, BYTES, stream);
        sys::cudaMemsetAsync(d, 0, BYTES, stream);
        sys::cudaMemcpyAsync(pinned, d, BYTES, cudaMemcpyKind::cudaMemcpyDeviceToHost, stream);
        sys::cudaFreeAsync(d, stream);
        sys::cudaStreamSynchronize(stream);
        println!("{}", *(pinned as *const f32));
        sys::cudaFreeHost(pinned);
        sys::cudaStreamDestroy(stream);
    }
}

// Managed memory is out of the lint's scope.
fn ok_malloc_managed() {
    let mut host = vec![0.0f32; N];
    let mut m: *mut c_void = null_mut();
    unsafe {
        sys::cudaMallocManaged(&mut m, BYTES, sys::cudaMemAttachGlobal);
        sys::cudaMemcpy(host.as_mut_ptr() as *mut c_void, m, BYTES, cudaMemcpyKind::cudaMemcpyDefault);
        sys::cudaFree(m);
    }
    println!("{}", host[0]);
}

fn main() {}
