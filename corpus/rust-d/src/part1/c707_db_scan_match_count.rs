//! case: a GPU filter-scan operator (its own `extern "C"` declarations of libcudart) copies the match counter into pinned memory with cudaMemcpyAsync and sizes the output from it before synchronizing the stream
//! expect: missing_sync=1

use std::ffi::{c_char, c_int, c_uint, c_void, CString};
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::nvrtc::compile_ptx;

type CudaStreamT = *mut c_void;
type CudaLibraryT = *mut c_void;
type CudaKernelT = *mut c_void;

#[repr(C)]
#[derive(Clone, Copy)]
struct Dim3 {
    x: c_uint,
    y: c_uint,
    z: c_uint,
}

const CUDA_MEMCPY_DEVICE_TO_HOST: c_int = 2;
const CUDA_STREAM_NON_BLOCKING: c_uint = 1;

#[link(name = "cudart")]
unsafe extern "C" {
    fn cudaMalloc(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaMallocHost(ptr: *mut *mut c_void, size: usize) -> c_int;
    fn cudaFree(ptr: *mut c_void) -> c_int;
    fn cudaFreeHost(ptr: *mut c_void) -> c_int;
    fn cudaStreamCreateWithFlags(stream: *mut CudaStreamT, flags: c_uint) -> c_int;
    fn cudaStreamSynchronize(stream: CudaStreamT) -> c_int;
    fn cudaStreamDestroy(stream: CudaStreamT) -> c_int;
    fn cudaMemsetAsync(ptr: *mut c_void, value: c_int, count: usize, stream: CudaStreamT) -> c_int;
    fn cudaMemcpyAsync(dst: *mut c_void, src: *const c_void, count: usize, kind: c_int, stream: CudaStreamT) -> c_int;
    fn cudaLibraryLoadData(
        lib: *mut CudaLibraryT,
        code: *const c_void,
        jit_options: *mut c_int,
        jit_values: *mut *mut c_void,
        num_jit: c_uint,
        lib_options: *mut c_int,
        lib_values: *mut *mut c_void,
        num_lib: c_uint,
    ) -> c_int;
    fn cudaLibraryGetKernel(kernel: *mut CudaKernelT, lib: CudaLibraryT, name: *const c_char) -> c_int;
    fn cudaLaunchKernel(func: *const c_void, grid: Dim3, block: Dim3, args: *mut *mut c_void, shmem: usize, stream: CudaStreamT) -> c_int;
}

const FILTER_CU: &str = r#"
extern "C" __global__ void filter_gt(const long long* col, int n, long long threshold,
                                     unsigned int* out_idx, unsigned int* out_count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && col[i] > threshold) {
        unsigned int slot = atomicAdd(out_count, 1u);
        out_idx[slot] = (unsigned int)i;
    }
}
"#;

#[derive(Debug)]
pub enum CudaErr {
    Runtime(c_int),
    Nvrtc(cudarc::nvrtc::CompileError),
}

fn ck(code: c_int) -> Result<(), CudaErr> {
    if code == 0 { Ok(()) } else { Err(CudaErr::Runtime(code)) }
}

/// A column scan: `SELECT rowid FROM t WHERE col > threshold`.
pub struct FilterScan {
    stream: CudaStreamT,
    kernel: CudaKernelT,
    d_idx: *mut c_void,
    d_count: *mut c_void,
    h_count: *mut u32, // pinned (cudaMallocHost)
    h_idx: *mut u32,   // pinned (cudaMallocHost)
    capacity: usize,
}

impl FilterScan {
    pub fn new(capacity: usize) -> Result<Self, CudaErr> {
        let ptx = compile_ptx(FILTER_CU).map_err(CudaErr::Nvrtc)?;
        let image = CString::new(ptx.to_src()).expect("ptx has no NUL");
        let (mut lib, mut kernel, mut stream) = (null_mut(), null_mut(), null_mut());
        let (mut d_idx, mut d_count, mut h_count, mut h_idx) = (null_mut(), null_mut(), null_mut(), null_mut());
        unsafe {
            ck(cudaLibraryLoadData(&mut lib, image.as_ptr().cast(), null_mut(), null_mut(), 0, null_mut(), null_mut(), 0))?;
            ck(cudaLibraryGetKernel(&mut kernel, lib, c"filter_gt".as_ptr()))?;
            ck(cudaStreamCreateWithFlags(&mut stream, CUDA_STREAM_NON_BLOCKING))?;
            ck(cudaMalloc(&mut d_idx, capacity * size_of::<u32>()))?;
            ck(cudaMalloc(&mut d_count, size_of::<u32>()))?;
            ck(cudaMallocHost(&mut h_count, size_of::<u32>()))?;
            ck(cudaMallocHost(&mut h_idx, capacity * size_of::<u32>()))?;
        }
        Ok(Self { stream, kernel, d_idx, d_count, h_count: h_count.cast(), h_idx: h_idx.cast(), capacity })
    }

    /// `d_col` holds `n` values already on the device.
    pub fn run(&mut self, mut d_col: *mut c_void, n: usize, mut threshold: i64) -> Result<Vec<u32>, CudaErr> {
        let mut n_i = n.min(self.capacity) as c_int;
        unsafe {
            ck(cudaMemsetAsync(self.d_count, 0, size_of::<u32>(), self.stream))?;
            let mut args: [*mut c_void; 5] = [
                (&mut d_col as *mut *mut c_void).cast(),
                (&mut n_i as *mut c_int).cast(),
                (&mut threshold as *mut i64).cast(),
                (&mut self.d_idx as *mut *mut c_void).cast(),
                (&mut self.d_count as *mut *mut c_void).cast(),
            ];
            let grid = Dim3 { x: (n_i as c_uint).div_ceil(256), y: 1, z: 1 };
            let block = Dim3 { x: 256, y: 1, z: 1 };
            ck(cudaLaunchKernel(self.kernel as *const c_void, grid, block, args.as_mut_ptr(), 0, self.stream))?;
            ck(cudaMemcpyAsync(self.h_count.cast(), self.d_count, size_of::<u32>(), CUDA_MEMCPY_DEVICE_TO_HOST, self.stream))?;
        }
        let matches = unsafe { *self.h_count } as usize; // EXPECT: missing_sync
        let matches = matches.min(self.capacity);
        if matches > 0 {
            unsafe {
                ck(cudaMemcpyAsync(self.h_idx.cast(), self.d_idx, matches * size_of::<u32>(), CUDA_MEMCPY_DEVICE_TO_HOST, self.stream))?;
            }
        }
        unsafe { ck(cudaStreamSynchronize(self.stream))? };
        let mut rows = unsafe { std::slice::from_raw_parts(self.h_idx, matches) }.to_vec();
        rows.sort_unstable(); // atomics hand out slots in any order
        Ok(rows)
    }
}

impl Drop for FilterScan {
    fn drop(&mut self) {
        unsafe {
            cudaStreamSynchronize(self.stream);
            cudaFreeHost(self.h_idx.cast());
            cudaFreeHost(self.h_count.cast());
            cudaFree(self.d_count);
            cudaFree(self.d_idx);
            cudaStreamDestroy(self.stream);
        }
    }
}
