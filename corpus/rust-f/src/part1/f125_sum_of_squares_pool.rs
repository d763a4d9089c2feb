//! case: a readback pool of `cuMemHostAlloc` blocks allocated write-combined "for faster transfers"; result blocks are summed on the host after `cuStreamSynchronize` (uncached reads of write-combined memory), and the pool's `Drop` returns the blocks with `cuMemFree` instead of `cuMemFreeHost`
//! expect: write_combined_host_read=1, mismatched_free=1

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SQUARE_SRC: &str = r#"
extern "C" __global__ void squares(float* out, unsigned int n, unsigned int base)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { float v = (float)(base + i); out[i] = v * v; }
}
"#;

/// Fixed-size pinned blocks handed out round robin.
pub struct ReadbackPool {
    ctx: Arc<CudaContext>,
    blocks: Vec<*mut c_void>,
    block_bytes: usize,
    next: usize,
}

impl ReadbackPool {
    pub fn new(ctx: &Arc<CudaContext>, count: usize, block_bytes: usize) -> Result<Self, DriverError> {
        ctx.bind_to_thread()?;
        let blocks = (0..count)
            .map(|_| {
                let mut p: *mut c_void = null_mut();
                unsafe { sys::cuMemHostAlloc(&mut p, block_bytes, sys::CU_MEMHOSTALLOC_WRITECOMBINED).result()? };
                Ok(p)
            })
            .collect::<Result<Vec<_>, DriverError>>()?;
        Ok(Self { ctx: ctx.clone(), blocks, block_bytes, next: 0 })
    }

    pub fn take(&mut self) -> *mut c_void {
        let p = self.blocks[self.next];
        self.next = (self.next + 1) % self.blocks.len();
        p
    }
}

impl Drop for ReadbackPool {
    fn drop(&mut self) {
        let _ = self.ctx.bind_to_thread();
        for &p in &self.blocks {
            unsafe {
                let _ = sys::cuMemFree_v2(p as CUdeviceptr); // EXPECT: mismatched_free
            }
        }
    }
}

pub fn sum_of_squares(chunks: u32, chunk_len: u32) -> Result<f64, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f: CudaFunction = ctx.load_module(compile_ptx(SQUARE_SRC)?)?.load_function("squares")?;
    let mut pool = ReadbackPool::new(&ctx, 2, chunk_len as usize * 4)?;
    let mut dev: CudaSlice<f32> = stream.alloc_zeros::<f32>(chunk_len as usize)?;
    let raw_stream: CUstream = stream.cu_stream();

    let mut total = 0.0f64;
    for c in 0..chunks {
        let base = c * chunk_len;
        unsafe {
            stream.launch_builder(&f).arg(&mut dev).arg(&chunk_len).arg(&base).launch(LaunchConfig::for_num_elems(chunk_len))?;
        }
        let block = pool.take();
        {
            let (src, _record) = dev.device_ptr(&stream);
            unsafe { sys::cuMemcpyDtoHAsync_v2(block, src, pool.block_bytes, raw_stream).result()? };
        }
        stream.synchronize()?;
        let values = unsafe { std::slice::from_raw_parts(block as *const f32, chunk_len as usize) };
        total += values.iter().map(|&v| v as f64).sum::<f64>(); // EXPECT: write_combined_host_read
    }
    Ok(total)
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    println!("sum of squares: {:e}", sum_of_squares(16, 1 << 16)?);
    Ok(())
}
