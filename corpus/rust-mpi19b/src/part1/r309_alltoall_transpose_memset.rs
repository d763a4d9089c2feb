//! case: a distributed matrix transpose packs blocks with `cuLaunchKernel`, synchronizes, and then clears the receive buffer with an asynchronous `cuMemsetD8Async` just before `MPI_Alltoall` writes into it; the memset may still be running when MPI's data lands.
//! expect: missing_sync=1

use std::error::Error;
use std::ffi::{c_int, c_uint, c_void};
use std::sync::Arc;

use cudarc::driver::{CudaContext, DriverError, result, sys};
use cudarc::nvrtc::compile_ptx;

use crate::ffi::{self, MPI_Comm};

const TRANSPOSE: &str = r#"
extern "C" __global__ void fill_rows(double* a, int first_row, int b, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (c < n && i < b) a[(size_t)i * n + c] = (double)(first_row + i) * n + c;
}
// send[d][j][i] = a[i][d*b + j]: every destination's block, already transposed.
extern "C" __global__ void pack_blocks(const double* a, double* send, int b, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, i = blockIdx.y;
    if (c < n && i < b) { int d = c / b, j = c % b; send[(size_t)d * b * b + (size_t)j * b + i] = a[(size_t)i * n + c]; }
}
// out[j][s*b + i] = recv[s][j][i]
extern "C" __global__ void unpack_blocks(const double* recv, double* out, int b, int n) {
    int c = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y;
    if (c < n && j < b) { int s = c / b, i = c % b; out[(size_t)j * n + c] = recv[(size_t)s * b * b + (size_t)j * b + i]; }
}
"#;

/// Device memory allocated and released in the order of one stream.
struct StreamBuf {
    ptr: sys::CUdeviceptr,
    stream: sys::CUstream,
}

impl StreamBuf {
    fn new(stream: sys::CUstream, bytes: usize) -> Result<Self, DriverError> {
        Ok(Self { ptr: unsafe { result::malloc_async(stream, bytes) }?, stream })
    }
}

impl Drop for StreamBuf {
    fn drop(&mut self) {
        let _ = unsafe { result::free_async(self.ptr, self.stream) };
    }
}

/// Transposes an `n x n` matrix distributed by blocks of `n / nranks` rows; returns the
/// checksum of this rank's rows of the transpose.
pub fn transpose_checksum(ctx: &Arc<CudaContext>, comm: MPI_Comm, n: usize) -> Result<f64, Box<dyn Error>> {
    let (rank, nranks) = ffi::rank_and_size(comm)?;
    let b = n / nranks as usize;
    let stream = ctx.new_stream()?;
    let cu = stream.cu_stream();
    let module = ctx.load_module(compile_ptx(TRANSPOSE)?)?;
    let fill = module.load_function("fill_rows")?;
    let pack = module.load_function("pack_blocks")?;
    let unpack = module.load_function("unpack_blocks")?;

    let bytes = b * n * std::mem::size_of::<f64>();
    let a = StreamBuf::new(cu, bytes)?;
    let send = StreamBuf::new(cu, bytes)?;
    let recv = StreamBuf::new(cu, bytes)?;
    let out = StreamBuf::new(cu, bytes)?;

    let grid = ((n as c_uint).div_ceil(256), b as c_uint, 1);
    let block = (256, 1, 1);
    let (mut b_i, mut n_i, mut first) = (b as c_int, n as c_int, rank * b as c_int);
    let (mut pa, mut ps, mut pr, mut po) = (a.ptr, send.ptr, recv.ptr, out.ptr);
    unsafe {
        let mut args = [&mut pa as *mut _ as *mut c_void, &mut first as *mut _ as *mut c_void, &mut b_i as *mut _ as *mut c_void, &mut n_i as *mut _ as *mut c_void];
        result::launch_kernel(fill.cu_function(), grid, block, 0, cu, &mut args)?;
        let mut args = [&mut pa as *mut _ as *mut c_void, &mut ps as *mut _ as *mut c_void, &mut b_i as *mut _ as *mut c_void, &mut n_i as *mut _ as *mut c_void];
        result::launch_kernel(pack.cu_function(), grid, block, 0, cu, &mut args)?;
    }
    stream.synchronize()?; // packed blocks are complete

    // `recv` is fresh stream-ordered memory: clear it so compute-sanitizer's initcheck stays quiet.
    unsafe { result::memset_d8_async(recv.ptr, 0, bytes, cu) }?;
    let count = (b * b) as c_int;
    let rc = unsafe { ffi::MPI_Alltoall(send.ptr as *const c_void, count, ffi::dt_double(), recv.ptr as *mut c_void, count, ffi::dt_double(), comm) }; // EXPECT: missing_sync
    ffi::check("MPI_Alltoall", rc)?;

    unsafe {
        let mut args = [&mut pr as *mut _ as *mut c_void, &mut po as *mut _ as *mut c_void, &mut b_i as *mut _ as *mut c_void, &mut n_i as *mut _ as *mut c_void];
        result::launch_kernel(unpack.cu_function(), grid, block, 0, cu, &mut args)?;
    }

    let host = unsafe { result::malloc_host(bytes, 0) }? as *mut f64;
    let copied = unsafe { sys::cuMemcpyDtoHAsync_v2(host as *mut c_void, out.ptr, bytes, cu) }.result();
    let synced = stream.synchronize();
    let checksum = if copied.is_ok() && synced.is_ok() {
        unsafe { std::slice::from_raw_parts(host, b * n) }.iter().sum()
    } else {
        f64::NAN
    };
    unsafe { result::free_host(host as *mut c_void) }?;
    copied?;
    synced?;
    Ok(checksum)
}
