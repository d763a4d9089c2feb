//! case: a byte histogram is accumulated over batches; each batch is uploaded into a RAII buffer that is dropped at the end of the loop body right after the histogram kernel was launched on it (cuMemFree_v2 in Drop, no wait for the kernel)
//! expect: relies_on_implicit_sync=1

use std::error::Error;
use std::ffi::{CString, c_void};

use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const BINS: usize = 256;

const SRC: &str = r#"
extern "C" __global__ void histogram256(const unsigned char* data, int n, unsigned int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomicAdd(&hist[data[i]], 1u);
    }
}
"#;

struct DevBytes {
    ptr: CUdeviceptr,
    len: usize,
}

impl DevBytes {
    fn alloc(len: usize) -> Result<Self, DriverError> {
        let ptr = unsafe { result::malloc_sync(len)? };
        Ok(Self { ptr, len })
    }

    fn upload(bytes: &[u8]) -> Result<Self, DriverError> {
        let buf = Self::alloc(bytes.len())?;
        unsafe { result::memcpy_htod_sync(buf.ptr, bytes)? };
        Ok(buf)
    }
}

impl Drop for DevBytes {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuMemFree_v2(self.ptr);
        }
    }
}

pub fn histogram(chunks: &[Vec<u8>]) -> Result<[u32; BINS], Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    ctx.bind_to_thread()?;
    let ptx = compile_ptx(SRC)?;
    let image = CString::new(ptx.to_src())?;
    let module = unsafe { result::module::load_data(image.as_ptr().cast())? };
    let f = unsafe { result::module::get_function(module, CString::new("histogram256")?)? };
    let stream = result::stream::create(result::stream::StreamKind::Default)?;

    let hist = DevBytes::alloc(BINS * std::mem::size_of::<u32>())?;
    unsafe { sys::cuMemsetD32_v2(hist.ptr, 0, BINS).result()? };

    for chunk in chunks {
        if chunk.is_empty() {
            continue;
        }
        let batch = DevBytes::upload(chunk)?;
        let mut p_data = batch.ptr;
        let mut n = batch.len as i32;
        let mut p_hist = hist.ptr;
        let mut args: [*mut c_void; 3] = [
            (&raw mut p_data).cast(),
            (&raw mut n).cast(),
            (&raw mut p_hist).cast(),
        ];
        let grid = batch.len.div_ceil(256) as u32;
        let launched =
            unsafe { result::launch_kernel(f, (grid, 1, 1), (256, 1, 1), 0, stream, &mut args) };
        drop(batch); // EXPECT: relies_on_implicit_sync
        launched?;
    }

    let mut counts = [0u32; BINS];
    unsafe {
        result::stream::synchronize(stream)?;
        result::memcpy_dtoh_sync(&mut counts, hist.ptr)?;
        result::stream::destroy(stream)?;
        result::module::unload(module)?;
    }
    Ok(counts)
}
