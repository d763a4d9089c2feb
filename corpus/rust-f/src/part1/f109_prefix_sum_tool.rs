//! case: a small offline tool uses cudarc's `driver::result` blocking copies (`cuMemcpyHtoD`/`cuMemcpyDtoH`) from and into `Vec`s and launches on the legacy default stream: no copy is asynchronous, the kernel and both copies are ordered on the one legacy stream, and refilling the input `Vec` right after the blocking upload is allowed (it returns once the data is staged)
//! expect: none

use std::error::Error;
use std::ffi::c_void;

use cudarc::driver::result;
use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const PREFIX_SRC: &str = r#"
extern "C" __global__ void block_prefix_sum(const int* in, int* out, unsigned int n)
{
    __shared__ int tile[512];
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    tile[threadIdx.x] = i < n ? in[i] : 0;
    __syncthreads();
    for (unsigned int off = 1; off < blockDim.x; off <<= 1) {
        int v = threadIdx.x >= off ? tile[threadIdx.x - off] : 0;
        __syncthreads();
        tile[threadIdx.x] += v;
        __syncthreads();
    }
    if (i < n) out[i] = tile[threadIdx.x];
}
"#;

/// Block-wise inclusive prefix sums of each batch, one batch after another.
pub fn prefix_sums(batches: &[Vec<i32>], block: u32) -> Result<Vec<Vec<i32>>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(PREFIX_SRC)?)?;
    let f = module.load_function("block_prefix_sum")?;
    let max = batches.iter().map(Vec::len).max().unwrap_or(0).max(1);

    let d_in: CudaDeviceBytes = CudaDeviceBytes::new(max * 4)?;
    let d_out: CudaDeviceBytes = CudaDeviceBytes::new(max * 4)?;
    let mut input: Vec<i32> = Vec::with_capacity(max);
    let mut results = Vec::with_capacity(batches.len());

    for batch in batches {
        input.clear();
        input.extend_from_slice(batch);
        unsafe { result::memcpy_htod_sync(d_in.0, &input)? };
        input.iter_mut().for_each(|v| *v = 0); // staged already: the buffer may be reused

        let mut n = batch.len() as u32;
        let (mut pin, mut pout) = (d_in.0, d_out.0);
        let mut params = [
            (&mut pin) as *mut CUdeviceptr as *mut c_void,
            (&mut pout) as *mut CUdeviceptr as *mut c_void,
            (&mut n) as *mut u32 as *mut c_void,
        ];
        let grid = (n.div_ceil(block), 1, 1);
        unsafe { result::launch_kernel(f.cu_function(), grid, (block, 1, 1), 0, std::ptr::null_mut(), &mut params)? };

        let mut out = vec![0i32; batch.len()];
        unsafe { result::memcpy_dtoh_sync(&mut out, d_out.0)? };
        results.push(out);
    }
    Ok(results)
}

/// Device bytes from `cuMemAlloc`, freed with `cuMemFree`.
struct CudaDeviceBytes(CUdeviceptr);

impl CudaDeviceBytes {
    fn new(bytes: usize) -> Result<Self, result::DriverError> {
        Ok(Self(unsafe { result::malloc_sync(bytes)? }))
    }
}

impl Drop for CudaDeviceBytes {
    fn drop(&mut self) {
        unsafe {
            let _ = result::free_sync(self.0);
        }
    }
}

pub fn run() -> Result<(), Box<dyn Error>> {
    let batches: Vec<Vec<i32>> = (1..5).map(|k| (0..100_000 * k).map(|i| (i % 3) as i32).collect()).collect();
    let sums = prefix_sums(&batches, 512)?;
    for (b, s) in batches.iter().zip(&sums) {
        println!("{} values, last block sum {}", b.len(), s.last().copied().unwrap_or(0));
    }
    Ok(())
}
