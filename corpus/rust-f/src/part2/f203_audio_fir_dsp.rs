//! case: audio FIR filter block processor; both host buffers come from cuMemHostAlloc with CU_MEMHOSTALLOC_WRITECOMBINED: the input one is only written (fine), the output one is read by the host after the synchronize (uncached read)
//! expect: write_combined_host_read=1
use cudarc::driver::result as drv;
use cudarc::driver::sys;
use std::ffi::{CString, c_void};

type Res<T> = Result<T, Box<dyn std::error::Error + Send + Sync>>;

const FIR_SRC: &str = r#"
extern "C" __global__ void fir(const float* x, const float* taps, float* y,
                               unsigned int n, unsigned int ntaps) {
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.0f;
    for (unsigned int k = 0; k < ntaps; ++k) {
        if (i >= k) acc += taps[k] * x[i - k];
    }
    y[i] = acc;
}
"#;

/// Host buffers for one block of samples, allocated once so the copies can run asynchronously.
struct BlockBuffers {
    input: *mut f32,
    output: *mut f32,
    frames: usize,
}

impl BlockBuffers {
    fn new(frames: usize) -> Res<Self> {
        let bytes = frames * std::mem::size_of::<f32>();
        // Write-combining makes the PCIe upload faster; same allocation path for both directions.
        let flags = sys::CU_MEMHOSTALLOC_WRITECOMBINED;
        let input = unsafe { drv::malloc_host(bytes, flags) }?;
        let output = unsafe { drv::malloc_host(bytes, flags) }?;
        Ok(BlockBuffers { input: input.cast(), output: output.cast(), frames })
    }
}

impl Drop for BlockBuffers {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::free_host(self.input.cast());
            let _ = drv::free_host(self.output.cast());
        }
    }
}

pub struct FirProcessor {
    stream: sys::CUstream,
    func: sys::CUfunction,
    taps: sys::CUdeviceptr,
    ntaps: u32,
    d_x: sys::CUdeviceptr,
    d_y: sys::CUdeviceptr,
    bufs: BlockBuffers,
}

impl FirProcessor {
    pub fn new(taps: &[f32], frames: usize) -> Res<Self> {
        drv::init()?;
        let ctx = unsafe { drv::primary_ctx::retain(drv::device::get(0)?) }?;
        unsafe { drv::ctx::set_current(ctx) }?;
        let ptx = cudarc::nvrtc::compile_ptx(FIR_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let module = unsafe { drv::module::load_data(image.as_ptr().cast()) }?;
        let func = unsafe { drv::module::get_function(module, CString::new("fir")?) }?;
        let stream = drv::stream::create(drv::stream::StreamKind::NonBlocking)?;
        let d_taps = unsafe { drv::malloc_sync(std::mem::size_of_val(taps)) }?;
        unsafe { drv::memcpy_htod_sync(d_taps, taps) }?;
        // That copy ran on the legacy stream, which the non-blocking stream does not wait for.
        drv::ctx::synchronize()?;
        let bytes = frames * 4;
        let d_x = unsafe { drv::malloc_sync(bytes) }?;
        let d_y = unsafe { drv::malloc_sync(bytes) }?;
        Ok(FirProcessor {
            stream,
            func,
            taps: d_taps,
            ntaps: taps.len() as u32,
            d_x,
            d_y,
            bufs: BlockBuffers::new(frames)?,
        })
    }

    /// Filters one block; `out` receives the filtered samples.
    pub fn process_block(&mut self, samples: &[f32], out: &mut [f32]) -> Res<()> {
        let frames = self.bufs.frames;
        let input = unsafe { std::slice::from_raw_parts_mut(self.bufs.input, frames) };
        input.copy_from_slice(&samples[..frames]);
        unsafe { sys::cuMemcpyHtoDAsync_v2(self.d_x, self.bufs.input as *const c_void, frames * 4, self.stream) }.result()?;

        let (mut x, mut taps, mut y) = (self.d_x, self.taps, self.d_y);
        let (mut n, mut nt) = (frames as u32, self.ntaps);
        let mut params: [*mut c_void; 5] = [
            (&mut x as *mut u64).cast(),
            (&mut taps as *mut u64).cast(),
            (&mut y as *mut u64).cast(),
            (&mut n as *mut u32).cast(),
            (&mut nt as *mut u32).cast(),
        ];
        unsafe {
            drv::launch_kernel(self.func, (n.div_ceil(128), 1, 1), (128, 1, 1), 0, self.stream, &mut params)?;
            sys::cuMemcpyDtoHAsync_v2(self.bufs.output.cast(), self.d_y, frames * 4, self.stream).result()?;
            drv::stream::synchronize(self.stream)?;
        }
        let filtered = unsafe { std::slice::from_raw_parts(self.bufs.output, frames) };
        out[..frames].copy_from_slice(filtered); // EXPECT: write_combined_host_read
        Ok(())
    }
}

impl Drop for FirProcessor {
    fn drop(&mut self) {
        unsafe {
            let _ = drv::stream::synchronize(self.stream);
            let _ = drv::memory_free(self.taps);
            let _ = drv::memory_free(self.d_x);
            let _ = drv::memory_free(self.d_y);
            let _ = drv::stream::destroy(self.stream);
        }
    }
}
