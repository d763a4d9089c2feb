//@no-rustfix
//! missing_sync through CUDA-aware MPI called over the crate's own `unsafe extern "C"` block
//! (MPICH-style handles: `c_int` communicators, datatypes, requests and ops), with memory from
//! cudarc 0.19.10. A CUDA-aware MPI library takes device and pinned pointers but knows nothing
//! of CUDA streams: it reads and writes its buffers on the host's timeline.
//!
//! Fires: blocking MPI_Send/MPI_Recv/MPI_Sendrecv/MPI_Bcast/MPI_Allreduce (also MPI_IN_PLACE)
//! on a `CudaSlice`'s `device_ptr`, `result::malloc_sync`, `sys::cuMemAlloc_v2`, runtime
//! `cudaMalloc`, `result::malloc_host` or `sys::cuMemAllocHost_v2` memory that a kernel
//! (`launch_builder`, `result::launch_kernel`), an async copy (`result::memcpy_dtoh_async`,
//! `sys::cuMemcpyDtoHAsync_v2`, `sys::cuMemcpyHtoDAsync_v2`) or an async memset may still use,
//! on the legacy stream or on a non-blocking `new_stream` that a blocking legacy copy does not
//! wait for; MPI_Isend/MPI_Irecv/MPI_Iallreduce in flight while a kernel, an async copy or memset
//! touches the buffer, the host reads a receive buffer or writes a send buffer (`Vec`, pinned),
//! or the buffer is freed (`cuMemFree_v2`, dropping the `CudaSlice`); a CUDA device synchronize
//! in place of MPI_Wait; MPI_Wait in place of a stream synchronize; MPI_Barrier as either; a wait
//! on one branch only; a request array with the access before MPI_Waitall.
//!
//! Near misses: stream, context, event and device synchronizes before the MPI call; MPI_Wait,
//! MPI_Waitall and MPI_Waitany before the access; MPI_Test polled until done; CUDA work on other
//! buffers while a request is in flight; a kernel, the host or MPI_Send only reading what an
//! in-flight MPI_Isend (or a running kernel) also reads; a blocking copy back to a `Vec`, then
//! MPI_Send of the host copy; a parameter buffer with no visible work; waits on both branches;
//! frees and drops after the wait.
#![allow(unused, dead_code, non_camel_case_types, non_snake_case)]

use std::ffi::{c_int, c_void};

use cudarc::driver::{
    result, sys, CudaContext, DevicePtr, DriverError, LaunchConfig, PushKernelArg,
};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

type MPI_Comm = c_int;
type MPI_Datatype = c_int;
type MPI_Request = c_int;
type MPI_Op = c_int;

#[repr(C)]
struct MPI_Status {
    count_lo: c_int,
    count_hi_and_cancelled: c_int,
    MPI_SOURCE: c_int,
    MPI_TAG: c_int,
    MPI_ERROR: c_int,
}

const MPI_COMM_WORLD: MPI_Comm = 0x4400_0000;
const MPI_FLOAT: MPI_Datatype = 0x4c00_040a;
const MPI_SUM: MPI_Op = 0x5800_0003;
const MPI_STATUS_IGNORE: *mut MPI_Status = std::ptr::null_mut();
const MPI_STATUSES_IGNORE: *mut MPI_Status = std::ptr::null_mut();
const MPI_IN_PLACE: *mut c_void = 1 as *mut c_void;

unsafe extern "C" {
    fn MPI_Send(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm) -> c_int;
    fn MPI_Recv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, status: *mut MPI_Status) -> c_int;
    fn MPI_Isend(buf: *const c_void, count: c_int, datatype: MPI_Datatype, dest: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int;
    fn MPI_Irecv(buf: *mut c_void, count: c_int, datatype: MPI_Datatype, source: c_int, tag: c_int, comm: MPI_Comm, request: *mut MPI_Request) -> c_int;
    fn MPI_Wait(request: *mut MPI_Request, status: *mut MPI_Status) -> c_int;
    fn MPI_Waitall(count: c_int, requests: *mut MPI_Request, statuses: *mut MPI_Status) -> c_int;
    fn MPI_Waitany(count: c_int, requests: *mut MPI_Request, index: *mut c_int, status: *mut MPI_Status) -> c_int;
    fn MPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status) -> c_int;
    fn MPI_Sendrecv(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        dest: c_int,
        sendtag: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        source: c_int,
        recvtag: c_int,
        comm: MPI_Comm,
        status: *mut MPI_Status,
    ) -> c_int;
    fn MPI_Bcast(buffer: *mut c_void, count: c_int, datatype: MPI_Datatype, root: c_int, comm: MPI_Comm) -> c_int;
    fn MPI_Allreduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm) -> c_int;
    fn MPI_Iallreduce(sendbuf: *const c_void, recvbuf: *mut c_void, count: c_int, datatype: MPI_Datatype, op: MPI_Op, comm: MPI_Comm, request: *mut MPI_Request) -> c_int;
    fn MPI_Barrier(comm: MPI_Comm) -> c_int;
}

const KERNELS: &str = r#"
extern "C" __global__ void scale(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 2.0f * in[i];
}

extern "C" __global__ void fill(float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f;
}

extern "C" __global__ void sum(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(out, in[i]);
}
"#;

const N: usize = 1 << 20;
const BYTES: usize = N * std::mem::size_of::<f32>();

// ------------------------------------------------------------------------------------------
// Blocking MPI calls on memory CUDA work may still use (fires at the MPI call)
// ------------------------------------------------------------------------------------------

// A kernel launched with launch_builder writes `d`; MPI_Send reads its device pointer.
fn fires_send_after_launch() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

// The kernel still reads `d_in`; MPI_Recv overwrites it (write after read).
fn fires_recv_into_kernel_input() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let d_in = stream.alloc_zeros::<f32>(N)?;
    let mut d_out = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&scale);
    b.arg(&d_in).arg(&mut d_out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let (p, _guard) = d_in.device_ptr(&stream);
    unsafe { MPI_Recv(p as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

// MPI_IN_PLACE on `result::malloc_sync` memory a kernel (given the raw pointer) still writes.
fn fires_allreduce_in_place_malloc_sync() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&d).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    unsafe { MPI_Allreduce(MPI_IN_PLACE, d as *mut c_void, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) };
    //~^ missing_sync
    let synced = stream.synchronize();
    unsafe { result::free_sync(d) }?;
    launched?;
    synced
}

// `result::memcpy_dtoh_async` into `result::malloc_host` memory; MPI_Bcast reads it at the root.
fn fires_bcast_pinned_after_memcpy_dtoh_async() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    let host = unsafe { std::slice::from_raw_parts_mut(h as *mut f32, N) };
    let (src, _guard) = d.device_ptr(&stream);
    let copied = unsafe { result::memcpy_dtoh_async(host, src, stream.cu_stream()) };
    unsafe { MPI_Bcast(h, n, MPI_FLOAT, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    let synced = stream.synchronize();
    unsafe { result::free_host(h) }?;
    copied?;
    synced
}

// `sys::cuMemcpyDtoHAsync_v2` into `sys::cuMemAllocHost_v2` memory; MPI_Send reads it.
fn fires_send_pinned_after_cuMemcpyDtoHAsync() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut h, BYTES) }.result()?;
    let (src, _guard) = d.device_ptr(&stream);
    let _ = unsafe { sys::cuMemcpyDtoHAsync_v2(h, src, BYTES, stream.cu_stream()) };
    unsafe { MPI_Send(h, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    unsafe { sys::cuMemFreeHost(h) }.result()
}

// `sys::cuMemcpyHtoDAsync_v2` still reads pinned `h`; MPI_Sendrecv receives into it.
fn fires_sendrecv_into_htod_copy_source() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let send = vec![1.0f32; N];
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    unsafe { std::ptr::write_bytes(h as *mut f32, 0, N) };
    let mut d: sys::CUdeviceptr = 0;
    let _ = unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    let _ = unsafe { sys::cuMemcpyHtoDAsync_v2(d, h, BYTES, stream.cu_stream()) };
    unsafe {
        MPI_Sendrecv(
            //~^ missing_sync
            send.as_ptr() as *const c_void,
            n,
            MPI_FLOAT,
            1,
            0,
            h,
            n,
            MPI_FLOAT,
            1,
            0,
            MPI_COMM_WORLD,
            MPI_STATUS_IGNORE,
        )
    };
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    let _ = unsafe { sys::cuMemFree_v2(d) };
    unsafe { result::free_host(h) }
}

// Runtime `cudaMalloc` memory an async memset on the legacy stream still writes.
fn fires_send_after_runtime_memset_async() -> Result<(), DriverError> {
    let n = N as i32;
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { rt::cudaMalloc(&mut d, BYTES) };
    unsafe { rt::cudaMemsetAsync(d, 0, BYTES, std::ptr::null_mut()) };
    unsafe { MPI_Send(d, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    unsafe { rt::cudaDeviceSynchronize() };
    unsafe { rt::cudaFree(d) };
    Ok(())
}

// A kernel through `result::launch_kernel` reads `d_in`; MPI_Recv overwrites it.
fn fires_recv_after_raw_launch_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let mut n = N as i32;
    let mut d_in = unsafe { result::malloc_sync(BYTES) }?;
    let mut d_out: sys::CUdeviceptr = 0;
    let _ = unsafe { sys::cuMemAlloc_v2(&mut d_out, BYTES) };
    let _ = unsafe { result::memset_d8_sync(d_in, 0, BYTES) };
    let mut params: [*mut c_void; 3] = [
        &mut d_in as *mut sys::CUdeviceptr as *mut c_void,
        &mut d_out as *mut sys::CUdeviceptr as *mut c_void,
        &mut n as *mut i32 as *mut c_void,
    ];
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let launched = unsafe {
        result::launch_kernel(scale.cu_function(), cfg.grid_dim, cfg.block_dim, 0, std::ptr::null_mut(), &mut params)
    };
    unsafe { MPI_Recv(d_in as *mut c_void, N as i32, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) };
    //~^ missing_sync
    let _ = unsafe { sys::cuCtxSynchronize() };
    let _ = unsafe { sys::cuMemFree_v2(d_out) };
    unsafe { result::free_sync(d_in) }?;
    launched
}

// A blocking legacy-stream copy does not wait for a non-blocking `new_stream`: the kernel
// there may still write `d` at MPI_Send.
fn fires_nonblocking_stream_not_waited_by_legacy_copy() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let s = ctx.new_stream()?;
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = s.alloc_zeros::<f32>(N)?;
    let other = s.alloc_zeros::<f32>(N)?;
    s.synchronize()?;
    let mut b = s.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let mut h = vec![0.0f32; N];
    let (po, _go) = other.device_ptr(&s);
    unsafe { result::memcpy_dtoh_sync(&mut h, po) }?;
    let (p, _guard) = d.device_ptr(&s);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    s.synchronize()?;
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Nonblocking MPI requests still in flight
// ------------------------------------------------------------------------------------------

// A kernel writes the buffer an in-flight MPI_Isend reads (fires at the launch).
fn fires_kernel_writes_isend_buffer() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    launched?;
    stream.synchronize()
}

// An async device-to-host copy reads the buffer an in-flight MPI_Irecv writes.
fn fires_dtoh_copy_reads_irecv_buffer() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let mut h: *mut c_void = std::ptr::null_mut();
    let _ = unsafe { sys::cuMemAllocHost_v2(&mut h, BYTES) };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    let _ = unsafe { sys::cuMemcpyDtoHAsync_v2(h, d, BYTES, stream.cu_stream()) };
    //~^ missing_sync
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    let _ = unsafe { sys::cuMemFreeHost(h) };
    unsafe { result::free_sync(d) }
}

// An async memset writes the buffer an in-flight MPI_Isend reads.
fn fires_memset_async_during_isend() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let mut d: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    let _ = unsafe { result::memset_d8_sync(d, 0, BYTES) };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(d as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    let _ = unsafe { result::memset_d8_async(d, 0xff, BYTES, stream.cu_stream()) };
    //~^ missing_sync
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    unsafe { sys::cuMemFree_v2(d) }.result()
}

// A kernel reads what an in-flight MPI_Iallreduce (in place) writes.
fn fires_kernel_reads_iallreduce_buffer() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Iallreduce(MPI_IN_PLACE, p as *mut c_void, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &mut req) };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    //~^ missing_sync
    let synced = stream.synchronize();
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    launched?;
    synced
}

// The host reads a `Vec` an in-flight MPI_Irecv writes.
fn fires_host_reads_irecv_vec() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    let first = h[0];
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// The host writes pinned memory an in-flight MPI_Isend reads.
fn fires_host_writes_isend_pinned() -> Result<(), DriverError> {
    let n = N as i32;
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    unsafe { std::ptr::write_bytes(h as *mut f32, 0, N) };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(h, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { *(h as *mut f32) = 2.0 };
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    unsafe { result::free_host(h) }
}

// `cuMemFree_v2` of device memory an in-flight MPI_Irecv writes.
fn fires_free_during_irecv() -> Result<(), DriverError> {
    let n = N as i32;
    let mut d: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    let _ = unsafe { sys::cuMemFree_v2(d) };
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// Dropping the `CudaSlice` frees the memory an in-flight MPI_Isend reads.
fn fires_drop_slice_during_isend() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    drop(d);
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// ------------------------------------------------------------------------------------------
// Waits of the wrong kind, or on some paths only
// ------------------------------------------------------------------------------------------

// cudaDeviceSynchronize does not complete the receive: the kernel reads `d` mid-receive.
fn fires_device_sync_instead_of_mpi_wait() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { rt::cudaDeviceSynchronize() };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    let synced = stream.synchronize();
    unsafe { result::free_sync(d) }?;
    launched?;
    synced
}

// MPI_Wait (of another request) does not wait for the kernel that writes `d`.
fn fires_mpi_wait_instead_of_stream_sync() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let mut tag = 0.0f32;
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(&mut tag as *mut f32 as *mut c_void, 1, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

// MPI_Barrier does not wait for the kernel that writes the send buffer of MPI_Allreduce.
fn fires_barrier_instead_of_stream_sync() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d_a = stream.alloc_zeros::<f32>(N)?;
    let d_b = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d_a).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    unsafe { MPI_Barrier(MPI_COMM_WORLD) };
    let (pa, _ga) = d_a.device_ptr(&stream);
    let (pb, _gb) = d_b.device_ptr(&stream);
    unsafe { MPI_Allreduce(pa as *const c_void, pb as *mut c_void, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

// MPI_Barrier does not complete the receive.
fn fires_barrier_instead_of_mpi_wait() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Barrier(MPI_COMM_WORLD) };
    let first = h[0];
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// MPI_Test called once, not polled, completes nothing.
fn fires_test_called_once() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut req: MPI_Request = 0;
    let mut flag: c_int = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Test(&mut req, &mut flag, MPI_STATUS_IGNORE) };
    let first = h[0];
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// The stream is synchronized on rank 0 only.
fn fires_stream_sync_on_one_branch(rank: i32) -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    if rank == 0 {
        stream.synchronize()?;
    }
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    //~^ missing_sync
    stream.synchronize()?;
    Ok(())
}

// MPI_Wait on rank 0 only: on the other path the host reads mid-receive.
fn fires_mpi_wait_on_one_branch(rank: i32) -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    if rank == 0 {
        unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    }
    let first = h[0];
    //~^ missing_sync
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// A request array: the kernel reads the receive buffer of `reqs[0]` before MPI_Waitall.
fn fires_request_array_kernel_before_waitall() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let send = vec![1.0f32; N];
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let mut reqs: [MPI_Request; 2] = [0; 2];
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut reqs[0]) };
    unsafe { MPI_Isend(send.as_ptr() as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut reqs[1]) };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    //~^ missing_sync
    let synced = stream.synchronize();
    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    unsafe { result::free_sync(d) }?;
    launched?;
    synced
}

// ------------------------------------------------------------------------------------------
// Near misses
// ------------------------------------------------------------------------------------------

fn ok_stream_sync_before_send() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    stream.synchronize()?;
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    Ok(())
}

fn ok_ctx_sync_before_allreduce_in_place() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let sum = ctx.load_module(ptx)?.load_function("sum")?;
    let n = N as i32;
    let d_in = stream.alloc_zeros::<f32>(N)?;
    let mut acc = stream.alloc_zeros::<f32>(1)?;
    let mut b = stream.launch_builder(&sum);
    b.arg(&d_in).arg(&mut acc).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    ctx.synchronize()?;
    let (p, _guard) = acc.device_ptr(&stream);
    unsafe { MPI_Allreduce(MPI_IN_PLACE, p as *mut c_void, 1, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD) };
    Ok(())
}

// The event is recorded after the kernel and synchronized before the broadcast.
fn ok_event_sync_before_bcast() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let ev = stream.record_event(None)?;
    ev.synchronize()?;
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Bcast(p as *mut c_void, n, MPI_FLOAT, 0, MPI_COMM_WORLD) };
    Ok(())
}

fn ok_cuStreamSynchronize_before_send_pinned() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    let mut h: *mut c_void = std::ptr::null_mut();
    unsafe { sys::cuMemAllocHost_v2(&mut h, BYTES) }.result()?;
    let (src, _guard) = d.device_ptr(&stream);
    let _ = unsafe { sys::cuMemcpyDtoHAsync_v2(h, src, BYTES, stream.cu_stream()) };
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    unsafe { MPI_Send(h, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    unsafe { sys::cuMemFreeHost(h) }.result()
}

fn ok_htod_copy_synced_before_sendrecv() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let send = vec![1.0f32; N];
    let h = unsafe { result::malloc_host(BYTES, 0) }?;
    unsafe { std::ptr::write_bytes(h as *mut f32, 0, N) };
    let mut d: sys::CUdeviceptr = 0;
    let _ = unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) };
    let _ = unsafe { sys::cuMemcpyHtoDAsync_v2(d, h, BYTES, stream.cu_stream()) };
    let _ = unsafe { sys::cuStreamSynchronize(stream.cu_stream()) };
    unsafe {
        MPI_Sendrecv(send.as_ptr() as *const c_void, n, MPI_FLOAT, 1, 0, h, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE)
    };
    let _ = unsafe { sys::cuMemFree_v2(d) };
    unsafe { result::free_host(h) }
}

fn ok_nonblocking_stream_synced_before_send() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let s = ctx.new_stream()?;
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = s.alloc_zeros::<f32>(N)?;
    let mut b = s.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    s.synchronize()?;
    let (p, _guard) = d.device_ptr(&s);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    Ok(())
}

fn ok_runtime_memset_synced_before_recv() -> Result<(), DriverError> {
    let n = N as i32;
    let mut d: *mut c_void = std::ptr::null_mut();
    unsafe { rt::cudaMalloc(&mut d, BYTES) };
    unsafe { rt::cudaMemsetAsync(d, 0, BYTES, std::ptr::null_mut()) };
    unsafe { rt::cudaDeviceSynchronize() };
    unsafe { MPI_Recv(d, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE) };
    unsafe { rt::cudaFree(d) };
    Ok(())
}

// The kernel in flight only reads `d`, whose writer was waited for; MPI_Send only reads it too.
fn ok_send_while_kernel_only_reads() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(KERNELS).unwrap())?;
    let fill = module.load_function("fill")?;
    let scale = module.load_function("scale")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    stream.synchronize()?;
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    stream.synchronize()?;
    Ok(())
}

// A blocking copy on the legacy stream waits for the kernel; the host copy is sent.
fn ok_blocking_copy_then_send_host_copy() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    let mut h = vec![0.0f32; N];
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { result::memcpy_dtoh_sync(&mut h, p) }?;
    unsafe { MPI_Send(h.as_ptr() as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    Ok(())
}

// A buffer from a parameter with no visible work on it: no evidence.
fn ok_parameter_buffer_no_visible_work(d: sys::CUdeviceptr, n: i32) -> Result<(), DriverError> {
    unsafe { MPI_Send(d as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    Ok(())
}

fn ok_mpi_wait_before_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    let d = unsafe { result::malloc_sync(BYTES) }?;
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    let synced = stream.synchronize();
    unsafe { result::free_sync(d) }?;
    launched?;
    synced
}

fn ok_iallreduce_waited_before_kernel() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    let mut out = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Iallreduce(MPI_IN_PLACE, p as *mut c_void, n, MPI_FLOAT, MPI_SUM, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d).arg(&mut out).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    stream.synchronize()
}

fn ok_waitall_before_host_read() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h_a = vec![0.0f32; N];
    let mut h_b = vec![0.0f32; N];
    let mut reqs: [MPI_Request; 2] = [0; 2];
    unsafe { MPI_Irecv(h_a.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut reqs[0]) };
    unsafe { MPI_Irecv(h_b.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &mut reqs[1]) };
    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    let total = h_a[0] + h_b[0];
    Ok(())
}

// MPI_Waitany completes a request the analysis cannot name: no finding on either.
fn ok_waitany_before_host_read() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h_a = vec![0.0f32; N];
    let mut h_b = vec![0.0f32; N];
    let mut reqs: [MPI_Request; 2] = [0; 2];
    let mut index: c_int = 0;
    unsafe { MPI_Irecv(h_a.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut reqs[0]) };
    unsafe { MPI_Irecv(h_b.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 1, MPI_COMM_WORLD, &mut reqs[1]) };
    unsafe { MPI_Waitany(2, reqs.as_mut_ptr(), &mut index, MPI_STATUS_IGNORE) };
    let first = h_a[0];
    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    Ok(())
}

fn ok_test_polled_until_done() -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut req: MPI_Request = 0;
    let mut done: c_int = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    while done == 0 {
        unsafe { MPI_Test(&mut req, &mut done, MPI_STATUS_IGNORE) };
    }
    let first = h[0];
    Ok(())
}

// Added after the second corpora (rust-mpi19b r306): the receive of each time step polled until
// done, the next step's receive started after that.
fn ok_test_polled_in_each_time_step(steps: usize) -> Result<(), DriverError> {
    let n = N as i32;
    let mut h = vec![0.0f32; N];
    let mut total = 0.0f32;
    for _ in 0..steps {
        let mut req: MPI_Request = 0;
        unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
        let mut done: c_int = 0;
        while done == 0 {
            unsafe { MPI_Test(&mut req, &mut done, MPI_STATUS_IGNORE) };
        }
        total += h[0];
    }
    Ok(())
}

// A request is a handle copied by value (rust-mpi19c r413): one a helper returns is the one its
// receive started, and an array's elements are all its requests.
fn post_recv_into(h: &mut [f32]) -> MPI_Request {
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(h.as_mut_ptr() as *mut c_void, h.len() as i32, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    req
}

fn ok_returned_request_waited_in_array() -> Result<(), DriverError> {
    let mut h = vec![0.0f32; N];
    let send = vec![1.0f32; N];
    let mut reqs: [MPI_Request; 2] = [0; 2];
    reqs[0] = post_recv_into(&mut h);
    unsafe { MPI_Isend(send.as_ptr() as *const c_void, N as i32, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut reqs[1]) };
    unsafe { MPI_Waitall(2, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    let first = h[0];
    Ok(())
}

fn fires_returned_request_never_waited() -> Result<(), DriverError> {
    let mut h = vec![0.0f32; N];
    let req = post_recv_into(&mut h);
    let first = h[0];
    //~^ missing_sync
    let mut req = req;
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

// A helper that waits over a `Vec` of requests unless it is empty (rust-mpi19d r502): the path
// that skips the wait held no request.
fn wait_all(reqs: &mut Vec<MPI_Request>) {
    if reqs.is_empty() {
        return;
    }
    unsafe { MPI_Waitall(reqs.len() as c_int, reqs.as_mut_ptr(), MPI_STATUSES_IGNORE) };
    reqs.clear();
}

fn ok_requests_waited_by_a_helper_that_skips_an_empty_vec(sweeps: usize) -> Result<(), DriverError> {
    let mut h = vec![0.0f32; N];
    let mut reqs: Vec<MPI_Request> = Vec::new();
    let mut total = 0.0f32;
    for _ in 0..sweeps {
        reqs.push(post_recv_into(&mut h));
        wait_all(&mut reqs);
        total += h[0];
    }
    Ok(())
}

// CUDA work on another buffer while the receive is in flight.
fn ok_kernel_on_other_buffer_during_irecv() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let recv = stream.alloc_zeros::<f32>(N)?;
    let mut work = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = recv.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(p as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut work).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    launched?;
    stream.synchronize()
}

// A kernel that only reads what an in-flight MPI_Isend also reads: two reads never race.
fn ok_kernel_reads_isend_buffer() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let scale = ctx.load_module(ptx)?.load_function("scale")?;
    let n = N as i32;
    let d_in = stream.alloc_zeros::<f32>(N)?;
    let mut d_out = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d_in.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    let mut b = stream.launch_builder(&scale);
    b.arg(&d_in).arg(&mut d_out).arg(&n);
    let launched = unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    launched?;
    stream.synchronize()
}

// The host reads a send buffer in flight: two reads.
fn ok_host_reads_isend_buffer() -> Result<(), DriverError> {
    let n = N as i32;
    let h = vec![1.0f32; N];
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(h.as_ptr() as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    let first = h[0];
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    Ok(())
}

fn ok_free_after_wait() -> Result<(), DriverError> {
    let n = N as i32;
    let mut d: sys::CUdeviceptr = 0;
    unsafe { sys::cuMemAlloc_v2(&mut d, BYTES) }.result()?;
    let mut req: MPI_Request = 0;
    unsafe { MPI_Irecv(d as *mut c_void, n, MPI_FLOAT, 0, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    unsafe { sys::cuMemFree_v2(d) }.result()
}

fn ok_drop_slice_after_wait() -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let n = N as i32;
    let d = stream.alloc_zeros::<f32>(N)?;
    stream.synchronize()?;
    let p = {
        let (p, _guard) = d.device_ptr(&stream);
        p
    };
    let mut req: MPI_Request = 0;
    unsafe { MPI_Isend(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD, &mut req) };
    unsafe { MPI_Wait(&mut req, MPI_STATUS_IGNORE) };
    drop(d);
    Ok(())
}

// Both branches wait before the send.
fn ok_sync_on_both_branches(rank: i32) -> Result<(), DriverError> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let ptx = compile_ptx(KERNELS).unwrap();
    let fill = ctx.load_module(ptx)?.load_function("fill")?;
    let n = N as i32;
    let mut d = stream.alloc_zeros::<f32>(N)?;
    let mut b = stream.launch_builder(&fill);
    b.arg(&mut d).arg(&n);
    unsafe { b.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    if rank == 0 {
        stream.synchronize()?;
    } else {
        ctx.synchronize()?;
    }
    let (p, _guard) = d.device_ptr(&stream);
    unsafe { MPI_Send(p as *const c_void, n, MPI_FLOAT, 1, 0, MPI_COMM_WORLD) };
    Ok(())
}

fn main() {}
