//! case: runtime API histogram: cudaMemsetAsync, kernel and cudaMemcpyAsync of the 256 bins into a stack array on a created stream, then the host picks the most frequent byte from the array with no cudaStreamSynchronize before it (the 1 KiB copy is too small for pageable_async_copy)
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result as drv;
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::result::{RuntimeError, launch_kernel};
use cudarc::runtime::sys::{self as rt, cudaMemcpyKind, cudaStream_t};

const BINS: usize = 256;

const SRC: &str = r#"
extern "C" __global__ void byte_histogram(const unsigned char* data, size_t n, unsigned int* bins) {
    __shared__ unsigned int local[256];
    local[threadIdx.x] = 0;
    __syncthreads();
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();
    atomicAdd(&bins[threadIdx.x], local[threadIdx.x]);
}
"#;

/// The most frequent byte of `data` and its count.
pub fn mode_byte(data: &[u8]) -> Result<(u8, u32), Box<dyn Error>> {
    unsafe { rt::cudaSetDevice(0).result()? };
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { drv::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { drv::module::get_function(module, CString::new("byte_histogram")?)? };

    let mut bins = [0u32; BINS];
    let mode;
    unsafe {
        let mut stream: cudaStream_t = ptr::null_mut();
        rt::cudaStreamCreate(&mut stream).result()?;
        let mut d_data: *mut c_void = ptr::null_mut();
        let mut d_bins: *mut c_void = ptr::null_mut();
        let a1 = rt::cudaMalloc(&mut d_data, data.len());
        let a2 = rt::cudaMalloc(&mut d_bins, BINS * std::mem::size_of::<u32>());
        if let Err(e) = a1.result().and(a2.result()) {
            rt::cudaFree(d_data);
            rt::cudaFree(d_bins);
            rt::cudaStreamDestroy(stream);
            return Err(e.into());
        }

        let mut status: Result<(), RuntimeError> =
            rt::cudaMemcpy(d_data, data.as_ptr().cast(), data.len(), cudaMemcpyKind::cudaMemcpyHostToDevice).result();
        if status.is_ok() {
            status = rt::cudaMemsetAsync(d_bins, 0, BINS * std::mem::size_of::<u32>(), stream).result();
        }
        if status.is_ok() {
            let (mut p_data, mut n, mut p_bins) = (d_data, data.len(), d_bins);
            let mut args: [*mut c_void; 3] = [(&raw mut p_data).cast(), (&raw mut n).cast(), (&raw mut p_bins).cast()];
            status = launch_kernel(f, (64, 1, 1), (BINS as u32, 1, 1), 0, stream, &mut args);
        }
        if status.is_ok() {
            status = rt::cudaMemcpyAsync(
                bins.as_mut_ptr().cast(),
                d_bins,
                BINS * std::mem::size_of::<u32>(),
                cudaMemcpyKind::cudaMemcpyDeviceToHost,
                stream,
            )
            .result();
        }
        mode = bins.iter().enumerate().max_by_key(|&(_, c)| *c).map(|(b, c)| (b as u8, *c)); // EXPECT: relies_on_implicit_sync

        let synced = rt::cudaStreamSynchronize(stream).result();
        rt::cudaFree(d_data);
        rt::cudaFree(d_bins);
        rt::cudaStreamDestroy(stream);
        let _ = drv::module::unload(module);
        status?;
        synced?;
    }
    Ok(mode.unwrap_or((0, 0)))
}
