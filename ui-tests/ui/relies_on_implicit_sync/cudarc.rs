//! `relies_on_implicit_sync` through cudarc 0.19 (this file: the cudarc family; the three files were one, written by helper 64 from the definition, and split by API):
//! `cudarc::driver::result`, `cudarc::runtime::sys` and the crate's own `extern "C"` block.
//!
//! The `fires_*` cases cover the lint's three situations: a free that is not documented to
//! wait (`cuMemFree_v2`, `cuMemFreeHost`, `result::free_sync`, `result::free_host`, the
//! runtime's and the crate's own `cudaFree`) of memory a kernel or an asynchronous copy
//! enqueued before may still use, through a helper, a `Drop` impl, a loop, a non-blocking
//! stream, the null stream and a wait on one branch only; an access ordered after such work
//! only by a free of *other* memory (a host read of managed or pinned memory, a host write of a
//! pinned upload source, a launch on another stream, a stream-ordered free on another stream);
//! and the pageable destination (a `Vec`, an array) of an asynchronous device-to-host copy used
//! before its stream is waited for. The `ok_*` cases are the near misses: stream, event and
//! context synchronization, a query polled until the stream is done, a blocking copy back after
//! work on the null stream, `cuMemFreeAsync` on the work's stream, `cuStreamWaitEvent`, frees of
//! memory no pending work uses, blocking copies into a `Vec`, memory from a parameter freed
//! with no work visible, and cudarc's safe API (a `CudaSlice` dropped right after a launch is
//! freed in stream order; its copies into a `Vec` synchronize).
//!
//! Raw calls between an allocation and its free are not `?`-checked (their status is kept and
//! returned at the end), so that no early return leaks the memory.
#![allow(unused, dead_code)]

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::sys::{self, CUdeviceptr, CUevent, CUfunction, CUstream};
use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys as rt;

const N: usize = 1 << 20;
const BYTES: usize = N * std::mem::size_of::<f32>();
/// 16 KiB of `f32`: under `pageable_async_copy`'s size threshold.
const SMALL: usize = 4096;
const SMALL_BYTES: usize = SMALL * std::mem::size_of::<f32>();
const BLOCK: u32 = 256;
const GRID: u32 = (N as u32 + BLOCK - 1) / BLOCK;

/// `cudaMemcpyKind` values for the crate's own binding.
const HOST_TO_DEVICE: i32 = 1;
const DEVICE_TO_HOST: i32 = 2;

/// The kernels, compiled with NVRTC: `scale` reads `in` and writes `out`; `accumulate` reads
/// `in` and reads and writes `out`.
const KERNELS: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = 2.0f * in[i];
    }
}

extern "C" __global__ void accumulate(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] += in[i];
    }
}
"#;

// The crate's own bindings of the runtime API.
unsafe extern "C" {
    fn cudaMalloc(dev_ptr: *mut *mut c_void, size: usize) -> i32;
    fn cudaFree(dev_ptr: *mut c_void) -> i32;
    fn cudaMemcpy(dst: *mut c_void, src: *const c_void, count: usize, kind: i32) -> i32;
    fn cudaStreamSynchronize(stream: *mut c_void) -> i32;
    fn cudaDeviceSynchronize() -> i32;
}

/// Device memory from `cuMemAlloc`, freed with `cuMemFree` when dropped.
struct DeviceBuffer {
    ptr: CUdeviceptr,
}

impl DeviceBuffer {
    fn new(bytes: usize) -> Result<Self, DriverError> {
        let mut ptr: CUdeviceptr = 0;
        unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes).result()? };
        Ok(Self { ptr })
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        unsafe {
            sys::cuMemFree_v2(self.ptr);
        }
    }
}

/// Releases device memory; the launchers below free their temporaries through it.
unsafe fn release(d: CUdeviceptr) {
    unsafe {
        sys::cuMemFree_v2(d);
    }
}

// ---------------------------------------------------------------------------------------------
// (1) A free that is not documented to wait, while work may still use the memory.
// ---------------------------------------------------------------------------------------------

/// `cuMemFree_v2` right after the launch that reads the memory, on a blocking stream.
fn fires_cu_mem_free_after_launch(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut stream: CUstream = null_mut();
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_in);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_out);
        sys::cuStreamDestroy_v2(stream);
        launched.result()
    }
}

/// `driver::result`: `free_sync` right after `launch_kernel` of a kernel the caller gives,
/// which receives the memory.
fn fires_result_free_sync_after_launch_kernel(f: CUfunction, stream: CUstream) -> Result<(), DriverError> {
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in = result::malloc_sync(BYTES)?;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let uploaded = result::memcpy_htod_sync(d_in, &h_in);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = result::launch_kernel(f, (GRID, 1, 1), (BLOCK, 1, 1), 0, stream, &mut params);
        let freed = result::free_sync(d_in);
        //~^ relies_on_implicit_sync
        let synced = result::stream::synchronize(stream);
        let freed_out = result::free_sync(d_out);
        uploaded.and(launched).and(freed).and(synced).and(freed_out)
    }
}

/// `driver::result`: the pinned staging buffer is freed with `free_host` while the upload may
/// still read it.
fn fires_result_free_host_while_upload_reads(stream: CUstream) -> Result<(), DriverError> {
    unsafe {
        let h_stage = result::malloc_host(BYTES, 0)?;
        let stage = std::slice::from_raw_parts_mut(h_stage as *mut f32, N);
        stage.fill(1.0);
        let mut d_dst: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_dst, BYTES);
        let copied = result::memcpy_htod_async(d_dst, stage, stream);
        let freed = result::free_host(h_stage);
        //~^ relies_on_implicit_sync
        let synced = result::stream::synchronize(stream);
        let mut h_check = vec![0.0f32; N];
        let read = result::memcpy_dtoh_sync(&mut h_check, d_dst);
        sys::cuMemFree_v2(d_dst);
        copied.and(freed).and(synced).and(read)
    }
}

/// The crate's own `extern "C"` `cudaFree`, right after the kernel that reads the memory.
fn fires_own_extern_cuda_free_after_launch(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in: *mut c_void = null_mut();
        let mut d_out: *mut c_void = null_mut();
        cudaMalloc(&mut d_in, BYTES);
        cudaMalloc(&mut d_out, BYTES);
        cudaMemcpy(d_in, h_in.as_ptr() as *const c_void, BYTES, HOST_TO_DEVICE);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut *mut c_void as *mut c_void,
            &mut d_out as *mut *mut c_void as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        cudaFree(d_in);
        //~^ relies_on_implicit_sync
        cudaStreamSynchronize(stream as *mut c_void);
        cudaMemcpy(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES, DEVICE_TO_HOST);
        cudaFree(d_out);
        launched.result()
    }
}

/// Each round frees its term while the kernel of that round may still read it.
fn fires_free_each_round_after_launch(ctx: &Arc<CudaContext>, stream: CUstream, rounds: usize) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let accumulate = ctx.load_module(ptx)?.load_function("accumulate")?;
    let h_term = vec![1.0f32; N];
    let mut h_acc = vec![0.0f32; N];
    unsafe {
        let mut d_acc: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_acc, BYTES);
        sys::cuMemsetD32_v2(d_acc, 0, N);
        for _ in 0..rounds {
            let mut d_term: CUdeviceptr = 0;
            sys::cuMemAlloc_v2(&mut d_term, BYTES);
            sys::cuMemcpyHtoD_v2(d_term, h_term.as_ptr() as *const c_void, BYTES);
            let mut n = N as i32;
            let mut params = [
                &mut d_term as *mut CUdeviceptr as *mut c_void,
                &mut d_acc as *mut CUdeviceptr as *mut c_void,
                &mut n as *mut i32 as *mut c_void,
            ];
            sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
            sys::cuMemFree_v2(d_term);
            //~^ relies_on_implicit_sync
        }
        sys::cuStreamSynchronize(stream);
        sys::cuMemcpyDtoH_v2(h_acc.as_mut_ptr() as *mut c_void, d_acc, BYTES);
        sys::cuMemFree_v2(d_acc);
    }
    Ok(())
}

/// A non-blocking stream: the kernel that reads `d_in` was launched after the last wait.
fn fires_free_on_non_blocking_stream(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    unsafe {
        let mut stream: CUstream = null_mut();
        sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
        let mut h_stage: *mut c_void = null_mut();
        sys::cuMemAllocHost_v2(&mut h_stage, BYTES).result()?;
        std::slice::from_raw_parts_mut(h_stage as *mut f32, N).fill(1.0);
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoDAsync_v2(d_in, h_stage, BYTES, stream);
        sys::cuStreamSynchronize(stream);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_in);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        sys::cuMemcpyDtoHAsync_v2(h_stage, d_out, BYTES, stream);
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(d_out);
        sys::cuMemFreeHost(h_stage);
        sys::cuStreamDestroy_v2(stream);
        launched.result()
    }
}

/// The null (legacy default) stream: the blocking copy back comes after the free.
fn fires_free_after_null_stream_launch(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_in);
        //~^ relies_on_implicit_sync
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_out);
        launched.result()
    }
}

/// A helper frees the input while the kernel may still read it.
fn fires_helper_frees_after_launch(ctx: &Arc<CudaContext>, stream: CUstream, mut d_acc: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let accumulate = ctx.load_module(ptx)?.load_function("accumulate")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_acc as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        release(d_in);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        launched.result()
    }
}

/// A `Drop` impl that calls `cuMemFree`, dropped right after the launch that reads the memory.
fn fires_drop_guard_right_after_launch(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    let out = DeviceBuffer::new(BYTES)?;
    let scratch = DeviceBuffer::new(BYTES)?;
    unsafe {
        sys::cuMemcpyHtoD_v2(scratch.ptr, h_in.as_ptr() as *const c_void, BYTES).result()?;
        let mut d_scratch = scratch.ptr;
        let mut d_out = out.ptr;
        let mut n = N as i32;
        let mut params = [
            &mut d_scratch as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        drop(scratch);
        //~^ relies_on_implicit_sync
        launched.result()?;
        sys::cuStreamSynchronize(stream).result()?;
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, out.ptr, BYTES).result()?;
    }
    Ok(())
}

/// The stream is waited for only when profiling: on the other path the free relies on
/// `cuMemFree`'s implicit synchronization.
fn fires_free_when_sync_on_one_branch_only(ctx: &Arc<CudaContext>, stream: CUstream, mut d_out: CUdeviceptr, profile: bool) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        if profile {
            sys::cuStreamSynchronize(stream);
        }
        sys::cuMemFree_v2(d_in);
        //~^ relies_on_implicit_sync
        launched.result()
    }
}

// ---------------------------------------------------------------------------------------------
// (2) An access ordered only by a free of other memory.
// ---------------------------------------------------------------------------------------------

/// The managed result is read after `cuMemFree` of a retired buffer no pending work uses: only
/// that free's implicit synchronization waits for the kernel.
fn fires_managed_read_after_free_of_retired(ctx: &Arc<CudaContext>, stream: CUstream, d_retired: CUdeviceptr) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut m_out: CUdeviceptr = 0;
        sys::cuMemAllocManaged(&mut m_out, BYTES, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut m_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_retired);
        let first = *(m_out as *const f32);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(m_out);
        launched.result().map(|()| first)
    }
}

/// `driver::result`: the pinned destination of a read-back is read after `free_sync` of a
/// retired buffer.
fn fires_pinned_readback_read_after_free_sync_of_retired(stream: CUstream, d_retired: CUdeviceptr) -> Result<f32, DriverError> {
    let h_src = vec![2.0f32; N];
    unsafe {
        let h_pinned = result::malloc_host(BYTES, 0)?;
        let mut d_src: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_src, BYTES);
        sys::cuMemcpyHtoD_v2(d_src, h_src.as_ptr() as *const c_void, BYTES);
        let dst = std::slice::from_raw_parts_mut(h_pinned as *mut f32, N);
        let copied = result::memcpy_dtoh_async(dst, d_src, stream);
        let freed = result::free_sync(d_retired);
        let first = dst[0];
        //~^ relies_on_implicit_sync
        let synced = result::stream::synchronize(stream);
        sys::cuMemFree_v2(d_src);
        let released = result::free_host(h_pinned);
        copied.and(freed).and(synced).and(released).map(|()| first)
    }
}

/// A launch on the consumer stream reads what the producer stream's kernel may still write;
/// only `cuMemFree` of a retired buffer stands between them.
fn fires_other_stream_launch_after_free_of_retired(ctx: &Arc<CudaContext>, d_retired: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let module = ctx.load_module(ptx)?;
    let scale = module.load_function("scale")?;
    let accumulate = module.load_function("accumulate")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut producer: CUstream = null_mut();
        let mut consumer: CUstream = null_mut();
        sys::cuStreamCreate(&mut producer, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuStreamCreate(&mut consumer, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        let mut d_mid: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_mid, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(d_out, 0, N);
        let mut n = N as i32;
        let mut produce = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_mid as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let mut consume = [
            &mut d_mid as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let produced = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, producer, produce.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_retired);
        let consumed = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, consumer, consume.as_mut_ptr(), null_mut());
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(consumer);
        sys::cuStreamSynchronize(producer);
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_mid);
        sys::cuMemFree_v2(d_out);
        sys::cuStreamDestroy_v2(producer);
        sys::cuStreamDestroy_v2(consumer);
        produced.result()?;
        consumed.result()
    }
}

/// A stream-ordered free on the cleanup stream, ordered after the kernel on the work stream
/// only by `cuMemFree` of a retired buffer.
fn fires_free_async_on_other_stream_after_free(ctx: &Arc<CudaContext>, mut d_in: CUdeviceptr, d_retired: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    unsafe {
        let mut work: CUstream = null_mut();
        let mut cleanup: CUstream = null_mut();
        sys::cuStreamCreate(&mut work, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuStreamCreate(&mut cleanup, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        let mut d_tmp: CUdeviceptr = 0;
        sys::cuMemAllocAsync(&mut d_tmp, BYTES, work).result()?;
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_tmp as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, work, params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_retired);
        sys::cuMemFreeAsync(d_tmp, cleanup);
        //~^ relies_on_implicit_sync
        sys::cuStreamSynchronize(cleanup);
        sys::cuStreamSynchronize(work);
        sys::cuStreamDestroy_v2(work);
        sys::cuStreamDestroy_v2(cleanup);
        launched.result()
    }
}

// ---------------------------------------------------------------------------------------------
// (3) The pageable destination of an asynchronous copy used before a wait.
// ---------------------------------------------------------------------------------------------

/// `driver::result::memcpy_dtoh_async` into a `Vec`, summed before the stream is waited for.
fn fires_result_dtoh_async_into_vec_summed_before_sync(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in = result::malloc_sync(BYTES)?;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let uploaded = result::memcpy_htod_sync(d_in, &h_in);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = result::launch_kernel(scale.cu_function(), (GRID, 1, 1), (BLOCK, 1, 1), 0, stream, &mut params);
        let copied = result::memcpy_dtoh_async(&mut h_out, d_out, stream);
        //~^ pageable_async_copy
        let total: f32 = h_out.iter().sum();
        //~^ relies_on_implicit_sync
        let synced = result::stream::synchronize(stream);
        let freed_in = result::free_sync(d_in);
        let freed_out = result::free_sync(d_out);
        uploaded.and(launched).and(copied).and(synced).and(freed_in).and(freed_out).map(|()| total)
    }
}

// ---------------------------------------------------------------------------------------------
// Near misses: nothing of this lint fires.
// ---------------------------------------------------------------------------------------------

/// `cuStreamSynchronize` before `cuMemFree_v2`.
fn ok_cu_stream_synchronize_before_cu_mem_free(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(stream);
        sys::cuMemFree_v2(d_in);
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_out);
        launched.result()
    }
}

/// `cuCtxSynchronize` before `result::free_sync`.
fn ok_cu_ctx_synchronize_before_free_sync(f: CUfunction, stream: CUstream) -> Result<(), DriverError> {
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in = result::malloc_sync(BYTES)?;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let uploaded = result::memcpy_htod_sync(d_in, &h_in);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = result::launch_kernel(f, (GRID, 1, 1), (BLOCK, 1, 1), 0, stream, &mut params);
        let synced = sys::cuCtxSynchronize().result();
        let freed = result::free_sync(d_in);
        let freed_out = result::free_sync(d_out);
        uploaded.and(launched).and(synced).and(freed).and(freed_out)
    }
}

/// An event recorded after the kernel and synchronized before the free.
fn ok_event_recorded_after_kernel_synchronized(ctx: &Arc<CudaContext>, stream: CUstream, mut d_out: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut done: CUevent = null_mut();
        sys::cuEventCreate(&mut done, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuEventRecord(done, stream);
        sys::cuEventSynchronize(done);
        sys::cuMemFree_v2(d_in);
        sys::cuEventDestroy_v2(done);
        launched.result()
    }
}

/// The kernel runs on the null stream; the blocking copy back waits for it before the frees.
fn ok_blocking_copy_back_after_null_stream_launch(ctx: &Arc<CudaContext>) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, null_mut(), params.as_mut_ptr(), null_mut());
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_out);
        launched.result()
    }
}

/// `cuMemFreeAsync` on the stream the kernels ran on: stream-ordered, documented.
fn ok_cu_mem_free_async_on_kernel_stream(ctx: &Arc<CudaContext>, stream: CUstream, mut d_in: CUdeviceptr, mut d_acc: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let module = ctx.load_module(ptx)?;
    let scale = module.load_function("scale")?;
    let accumulate = module.load_function("accumulate")?;
    unsafe {
        let mut d_tmp: CUdeviceptr = 0;
        sys::cuMemAllocAsync(&mut d_tmp, BYTES, stream).result()?;
        let mut n = N as i32;
        let mut first = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_tmp as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let mut second = [
            &mut d_tmp as *mut CUdeviceptr as *mut c_void,
            &mut d_acc as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let scaled = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, first.as_mut_ptr(), null_mut());
        let accumulated = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, second.as_mut_ptr(), null_mut());
        let freed = sys::cuMemFreeAsync(d_tmp, stream);
        sys::cuStreamSynchronize(stream).result()?;
        scaled.result()?;
        accumulated.result()?;
        freed.result()
    }
}

/// `d_a` is freed while a kernel runs, but that kernel does not use it; the result is read
/// after an explicit wait.
fn ok_free_memory_no_pending_work_uses(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let module = ctx.load_module(ptx)?;
    let scale = module.load_function("scale")?;
    let accumulate = module.load_function("accumulate")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_a: CUdeviceptr = 0;
        let mut d_b: CUdeviceptr = 0;
        let mut d_c: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_a, BYTES);
        sys::cuMemAlloc_v2(&mut d_b, BYTES);
        sys::cuMemAlloc_v2(&mut d_c, BYTES);
        sys::cuMemcpyHtoD_v2(d_a, h_in.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(d_c, 0, N);
        let mut n = N as i32;
        let mut first = [
            &mut d_a as *mut CUdeviceptr as *mut c_void,
            &mut d_b as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let mut second = [
            &mut d_b as *mut CUdeviceptr as *mut c_void,
            &mut d_c as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let scaled = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, first.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(stream);
        let accumulated = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, second.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_a);
        sys::cuStreamSynchronize(stream);
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_c, BYTES);
        sys::cuMemFree_v2(d_b);
        sys::cuMemFree_v2(d_c);
        scaled.result()?;
        accumulated.result()
    }
}

/// `driver::result`: the pinned destination of a read-back is read after the stream is
/// synchronized, then freed with `free_host`.
fn ok_pinned_readback_read_after_stream_sync(stream: CUstream) -> Result<f32, DriverError> {
    let h_src = vec![2.0f32; N];
    unsafe {
        let h_pinned = result::malloc_host(BYTES, 0)?;
        let mut d_src: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_src, BYTES);
        sys::cuMemcpyHtoD_v2(d_src, h_src.as_ptr() as *const c_void, BYTES);
        let dst = std::slice::from_raw_parts_mut(h_pinned as *mut f32, N);
        let copied = result::memcpy_dtoh_async(dst, d_src, stream);
        let synced = result::stream::synchronize(stream);
        let first = dst[0];
        sys::cuMemFree_v2(d_src);
        let released = result::free_host(h_pinned);
        copied.and(synced).and(released).map(|()| first)
    }
}

/// A blocking copy (`result::memcpy_dtoh_sync`) into a `Vec`, after a kernel on the null stream.
fn ok_blocking_dtoh_into_vec_after_null_stream_launch(ctx: &Arc<CudaContext>) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in = result::malloc_sync(BYTES)?;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        let uploaded = result::memcpy_htod_sync(d_in, &h_in);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = result::launch_kernel(scale.cu_function(), (GRID, 1, 1), (BLOCK, 1, 1), 0, result::stream::null(), &mut params);
        let read = result::memcpy_dtoh_sync(&mut h_out, d_out);
        let last = h_out[N - 1];
        let freed_in = result::free_sync(d_in);
        let freed_out = result::free_sync(d_out);
        uploaded.and(launched).and(read).and(freed_in).and(freed_out).map(|()| last)
    }
}

/// `cuStreamQuery` polled until the stream is done, then the free.
fn ok_stream_query_polled_before_free(ctx: &Arc<CudaContext>, stream: CUstream, mut d_out: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        while sys::cuStreamQuery(stream) != sys::CUresult::CUDA_SUCCESS {
            std::thread::yield_now();
        }
        sys::cuMemFree_v2(d_in);
        launched.result()
    }
}

/// The stream is synchronized on both branches; only one of them frees.
fn ok_free_on_one_branch_after_sync_on_both(ctx: &Arc<CudaContext>, stream: CUstream, mut d_in: CUdeviceptr, mut d_out: CUdeviceptr, release_now: bool) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    unsafe {
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut()).result()?;
        if release_now {
            sys::cuStreamSynchronize(stream).result()?;
            sys::cuMemFree_v2(d_in).result()?;
        } else {
            sys::cuStreamSynchronize(stream).result()?;
        }
    }
    Ok(())
}

/// The crate's own `extern "C"` bindings: `cudaDeviceSynchronize` before `cudaFree`.
fn ok_own_extern_device_sync_before_cuda_free(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut d_in: *mut c_void = null_mut();
        let mut d_out: *mut c_void = null_mut();
        cudaMalloc(&mut d_in, BYTES);
        cudaMalloc(&mut d_out, BYTES);
        cudaMemcpy(d_in, h_in.as_ptr() as *const c_void, BYTES, HOST_TO_DEVICE);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut *mut c_void as *mut c_void,
            &mut d_out as *mut *mut c_void as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        cudaDeviceSynchronize();
        cudaFree(d_in);
        cudaMemcpy(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES, DEVICE_TO_HOST);
        cudaFree(d_out);
        launched.result()
    }
}

/// The helper frees after the stream was synchronized.
fn ok_helper_frees_after_sync(ctx: &Arc<CudaContext>, stream: CUstream, mut d_acc: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let accumulate = ctx.load_module(ptx)?.load_function("accumulate")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_acc as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(stream);
        release(d_in);
        launched.result()
    }
}

/// The `Drop` guard is dropped after the stream was synchronized.
fn ok_drop_guard_after_stream_sync(ctx: &Arc<CudaContext>, stream: CUstream) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    let out = DeviceBuffer::new(BYTES)?;
    let scratch = DeviceBuffer::new(BYTES)?;
    unsafe {
        sys::cuMemcpyHtoD_v2(scratch.ptr, h_in.as_ptr() as *const c_void, BYTES).result()?;
        let mut d_scratch = scratch.ptr;
        let mut d_out = out.ptr;
        let mut n = N as i32;
        let mut params = [
            &mut d_scratch as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        let synced = sys::cuStreamSynchronize(stream);
        drop(scratch);
        launched.result()?;
        synced.result()?;
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, out.ptr, BYTES).result()?;
    }
    Ok(())
}

/// The consumer stream waits on an event recorded after the producer's kernel: documented
/// device-side ordering, whatever the `cuMemFree` in between does.
fn ok_consumer_waits_on_event_not_on_free(ctx: &Arc<CudaContext>, d_retired: CUdeviceptr) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let module = ctx.load_module(ptx)?;
    let scale = module.load_function("scale")?;
    let accumulate = module.load_function("accumulate")?;
    let h_in = vec![1.0f32; N];
    let mut h_out = vec![0.0f32; N];
    unsafe {
        let mut producer: CUstream = null_mut();
        let mut consumer: CUstream = null_mut();
        let mut ready: CUevent = null_mut();
        sys::cuStreamCreate(&mut producer, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuStreamCreate(&mut consumer, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        sys::cuEventCreate(&mut ready, sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        let mut d_mid: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemAlloc_v2(&mut d_mid, BYTES);
        sys::cuMemAlloc_v2(&mut d_out, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        sys::cuMemsetD32_v2(d_out, 0, N);
        let mut n = N as i32;
        let mut produce = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut d_mid as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let mut consume = [
            &mut d_mid as *mut CUdeviceptr as *mut c_void,
            &mut d_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let produced = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, producer, produce.as_mut_ptr(), null_mut());
        sys::cuEventRecord(ready, producer);
        sys::cuMemFree_v2(d_retired);
        sys::cuStreamWaitEvent(consumer, ready, 0);
        let consumed = sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, consumer, consume.as_mut_ptr(), null_mut());
        sys::cuStreamSynchronize(consumer);
        sys::cuStreamSynchronize(producer);
        sys::cuMemcpyDtoH_v2(h_out.as_mut_ptr() as *mut c_void, d_out, BYTES);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(d_mid);
        sys::cuMemFree_v2(d_out);
        sys::cuEventDestroy_v2(ready);
        sys::cuStreamDestroy_v2(producer);
        sys::cuStreamDestroy_v2(consumer);
        produced.result()?;
        consumed.result()
    }
}

/// Each round waits for its kernel before freeing its term.
fn ok_free_each_round_after_stream_sync(ctx: &Arc<CudaContext>, stream: CUstream, rounds: usize) -> Result<(), DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let accumulate = ctx.load_module(ptx)?.load_function("accumulate")?;
    let h_term = vec![1.0f32; N];
    let mut h_acc = vec![0.0f32; N];
    unsafe {
        let mut d_acc: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_acc, BYTES);
        sys::cuMemsetD32_v2(d_acc, 0, N);
        for _ in 0..rounds {
            let mut d_term: CUdeviceptr = 0;
            sys::cuMemAlloc_v2(&mut d_term, BYTES);
            sys::cuMemcpyHtoD_v2(d_term, h_term.as_ptr() as *const c_void, BYTES);
            let mut n = N as i32;
            let mut params = [
                &mut d_term as *mut CUdeviceptr as *mut c_void,
                &mut d_acc as *mut CUdeviceptr as *mut c_void,
                &mut n as *mut i32 as *mut c_void,
            ];
            sys::cuLaunchKernel(accumulate.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
            sys::cuStreamSynchronize(stream);
            sys::cuMemFree_v2(d_term);
        }
        sys::cuMemcpyDtoH_v2(h_acc.as_mut_ptr() as *mut c_void, d_acc, BYTES);
        sys::cuMemFree_v2(d_acc);
    }
    Ok(())
}

/// The managed result is read after `cuStreamSynchronize`, whatever the free before it does.
fn ok_managed_read_after_stream_sync_despite_free(ctx: &Arc<CudaContext>, stream: CUstream, d_retired: CUdeviceptr) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let h_in = vec![1.0f32; N];
    unsafe {
        let mut m_out: CUdeviceptr = 0;
        sys::cuMemAllocManaged(&mut m_out, BYTES, sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32).result()?;
        let mut d_in: CUdeviceptr = 0;
        sys::cuMemAlloc_v2(&mut d_in, BYTES);
        sys::cuMemcpyHtoD_v2(d_in, h_in.as_ptr() as *const c_void, BYTES);
        let mut n = N as i32;
        let mut params = [
            &mut d_in as *mut CUdeviceptr as *mut c_void,
            &mut m_out as *mut CUdeviceptr as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
        ];
        let launched = sys::cuLaunchKernel(scale.cu_function(), GRID, 1, 1, BLOCK, 1, 1, 0, stream, params.as_mut_ptr(), null_mut());
        sys::cuMemFree_v2(d_retired);
        sys::cuStreamSynchronize(stream);
        let first = *(m_out as *const f32);
        sys::cuMemFree_v2(d_in);
        sys::cuMemFree_v2(m_out);
        launched.result().map(|()| first)
    }
}

/// cudarc's safe API: a `CudaSlice` dropped right after the launch that reads it is freed in
/// stream order.
#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
fn ok_cuda_slice_dropped_right_after_launch(ctx: &Arc<CudaContext>) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let stream = ctx.default_stream();
    let h_in = vec![1.0f32; SMALL];
    let d_in = stream.clone_htod(&h_in)?;
    let mut d_out = stream.alloc_zeros::<f32>(SMALL)?;
    let n = SMALL as i32;
    let cfg = LaunchConfig::for_num_elems(SMALL as u32);
    unsafe { stream.launch_builder(&scale).arg(&d_in).arg(&mut d_out).arg(&n).launch(cfg)? };
    drop(d_in);
    let h_out = stream.clone_dtoh(&d_out)?;
    Ok(h_out[0])
}

/// cudarc's safe API: a temporary `CudaSlice` goes out of scope right after the launch.
#[cfg_attr(cuda_lint, allow(cuda_lint::pageable_async_copy))] // another lint's subject
fn ok_cuda_slice_temporary_out_of_scope_after_launch(ctx: &Arc<CudaContext>) -> Result<f32, DriverError> {
    let ptx = compile_ptx(KERNELS).unwrap();
    let module = ctx.load_module(ptx)?;
    let scale = module.load_function("scale")?;
    let accumulate = module.load_function("accumulate")?;
    let stream = ctx.new_stream()?;
    let h_in = vec![1.0f32; SMALL];
    let d_in = stream.clone_htod(&h_in)?;
    let mut d_acc = stream.alloc_zeros::<f32>(SMALL)?;
    let n = SMALL as i32;
    let cfg = LaunchConfig::for_num_elems(SMALL as u32);
    {
        let mut d_tmp = stream.alloc_zeros::<f32>(SMALL)?;
        unsafe { stream.launch_builder(&scale).arg(&d_in).arg(&mut d_tmp).arg(&n).launch(cfg)? };
        unsafe { stream.launch_builder(&accumulate).arg(&d_tmp).arg(&mut d_acc).arg(&n).launch(cfg)? };
    }
    let mut h_acc = vec![0.0f32; SMALL];
    stream.memcpy_dtoh(&d_acc, &mut h_acc)?;
    Ok(h_acc[SMALL - 1])
}

fn main() {}
