//! case: a gather kernel reads an index table that is released with driver::result::free_sync as soon as the kernel is launched ("the table is no longer needed"), before anything waits for the stream; the result then comes back through pinned memory after a stream synchronize
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};
use std::ptr;

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void gather(const float* src, const unsigned int* idx, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        out[i] = src[idx[i]];
    }
}
"#;

fn launch_gather(
    f: CUfunction,
    stream: CUstream,
    d_src: CUdeviceptr,
    d_idx: CUdeviceptr,
    d_out: CUdeviceptr,
    n: usize,
) -> Result<(), DriverError> {
    let (mut p_src, mut p_idx, mut p_out, mut n_i) = (d_src, d_idx, d_out, n as i32);
    let mut args: [*mut c_void; 4] = [
        (&raw mut p_src).cast(),
        (&raw mut p_idx).cast(),
        (&raw mut p_out).cast(),
        (&raw mut n_i).cast(),
    ];
    let grid = n.div_ceil(256) as u32;
    unsafe { result::launch_kernel(f, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args) }
}

pub fn gather(src: &[f32], idx: &[u32]) -> Result<Vec<f32>, Box<dyn Error>> {
    assert!(idx.iter().all(|&i| (i as usize) < src.len()));
    let n = idx.len();
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("gather")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    unsafe {
        let mut d_src: CUdeviceptr = 0;
        let mut d_idx: CUdeviceptr = 0;
        let mut d_out: CUdeviceptr = 0;
        let mut h_out: *mut c_void = ptr::null_mut();
        let a1 = sys::cuMemAlloc_v2(&mut d_src, std::mem::size_of_val(src));
        let a2 = sys::cuMemAlloc_v2(&mut d_idx, std::mem::size_of_val(idx));
        let a3 = sys::cuMemAlloc_v2(&mut d_out, n * std::mem::size_of::<f32>());
        let a4 = sys::cuMemAllocHost_v2(&mut h_out, n * std::mem::size_of::<f32>());
        if let Err(e) = a1.result().and(a2.result()).and(a3.result()).and(a4.result()) {
            let _ = sys::cuMemFree_v2(d_src);
            let _ = sys::cuMemFree_v2(d_idx);
            let _ = sys::cuMemFree_v2(d_out);
            let _ = sys::cuMemFreeHost(h_out);
            return Err(e.into());
        }

        // Blocking uploads; the kernel runs on a blocking stream, after them.
        let mut status = result::memcpy_htod_sync(d_src, src)
            .and(result::memcpy_htod_sync(d_idx, idx));
        if status.is_ok() {
            status = launch_gather(f, stream, d_src, d_idx, d_out, n);
        }
        let idx_freed = result::free_sync(d_idx); // EXPECT: relies_on_implicit_sync

        let pinned = std::slice::from_raw_parts_mut(h_out as *mut f32, n);
        if status.is_ok() {
            status = result::memcpy_dtoh_async(pinned, d_out, stream);
        }
        let synced = result::stream::synchronize(stream);
        let out = if status.is_ok() && synced.is_ok() { pinned.to_vec() } else { Vec::new() };

        let _ = result::free_sync(d_src);
        let _ = result::free_sync(d_out);
        let _ = result::free_host(h_out);
        let _ = result::stream::destroy(stream);
        let _ = result::module::unload(module);
        status?;
        synced?;
        idx_freed?;
        Ok(out)
    }
}
