//! case: a histogram whose bins are a module __device__ global (cuModuleGetGlobal), released with cuMemFree in Drop
//! expect: mismatched_free=1
use std::ffi::CString;

use cuda_lint_runtime::{Context, Kernel, LaunchConfig, Module, Result, Stream};
use cudarc::driver::sys;

const HIST_SRC: &str = r#"
__device__ unsigned int g_bins[256];
extern "C" __global__ void histogram(const unsigned char* data, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&g_bins[data[i]], 1u);
}
"#;

pub struct Histogram {
    module: Module,
    kernel: Kernel,
    bins: sys::CUdeviceptr,
    bins_bytes: usize,
}

impl Histogram {
    pub fn new(ctx: &Context) -> Result<Histogram> {
        let module = ctx.load_cuda(HIST_SRC)?;
        let kernel = module.function("histogram")?;
        let name = CString::new("g_bins").unwrap();
        let (mut bins, mut bins_bytes) = (0, 0);
        ctx.bind_to_thread()?;
        let r = unsafe { sys::cuModuleGetGlobal_v2(&mut bins, &mut bins_bytes, module.as_raw(), name.as_ptr()) };
        assert_eq!(r, sys::CUresult::CUDA_SUCCESS);
        Ok(Histogram { module, kernel, bins, bins_bytes })
    }

    pub fn run(&self, stream: &Stream, data: &cuda_lint_runtime::DeviceBuffer<u8>) -> Result<Vec<u32>> {
        let n = data.len() as u32;
        unsafe {
            sys::cuMemsetD32Async(self.bins, 0, self.bins_bytes / 4, stream.as_raw());
            stream.launch(&self.kernel, LaunchConfig::for_num_elems(n), &[data, &n])?;
        }
        stream.synchronize()?;
        let mut out = vec![0u32; self.bins_bytes / 4];
        unsafe { sys::cuMemcpyDtoH_v2(out.as_mut_ptr().cast(), self.bins, self.bins_bytes) };
        Ok(out)
    }
}

impl Drop for Histogram {
    fn drop(&mut self) {
        if self.module.context().bind_to_thread().is_ok() {
            unsafe {
                let _ = sys::cuMemFree_v2(self.bins); // EXPECT: mismatched_free
            }
        }
    }
}

pub fn run() -> Result<()> {
    let ctx = Context::new(0)?;
    let stream = ctx.new_stream()?;
    let mut data = ctx.alloc::<u8>(1 << 20)?;
    stream.memset_d8(&mut data, 7)?;
    let hist = Histogram::new(&ctx)?;
    let bins = hist.run(&stream, &data)?;
    assert_eq!(bins[7], 1 << 20);
    Ok(())
}
