//! case: a cudaMallocManaged result table re-attached to the host with cudaStreamAttachMemAsync(.., cudaMemAttachHost) and synchronized; the host scans it while a kernel runs on another stream
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const SRC: &str = r#"
extern "C" __global__ void blur(float* img, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i < n) img[i] = 0.5f * (img[i] + img[i - 1]);
}
"#;

struct HostTable {
    ptr: *mut u32,
    len: usize,
}

impl HostTable {
    fn new(len: usize, stream: rt::cudaStream_t) -> Result<HostTable, String> {
        let mut p: *mut c_void = null_mut();
        unsafe {
            if rt::cudaMallocManaged(&mut p, len * 4, rt::cudaMemAttachGlobal) != rt::cudaError_t::cudaSuccess {
                return Err("cudaMallocManaged failed".into());
            }
            rt::cudaStreamAttachMemAsync(stream, p, 0, rt::cudaMemAttachHost);
            rt::cudaStreamSynchronize(stream);
            std::ptr::write_bytes(p as *mut u32, 0, len);
        }
        Ok(HostTable { ptr: p as *mut u32, len })
    }

    fn count_over(&self, threshold: u32) -> usize {
        let t = unsafe { std::slice::from_raw_parts(self.ptr, self.len) };
        t.iter().filter(|&&v| v > threshold).count()
    }
}

impl Drop for HostTable {
    fn drop(&mut self) {
        unsafe { rt::cudaFree(self.ptr as *mut c_void) };
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(SRC)?)?.load_function("blur")?;
    let table = HostTable::new(4096, stream.cu_stream() as rt::cudaStream_t)?;
    let mut img = stream.alloc_zeros::<f32>(1 << 20)?;
    let n = img.len() as u32;
    unsafe { stream.launch_builder(&f).arg(&mut img).arg(&n).launch(LaunchConfig::for_num_elems(n)) }?;
    println!("{} hot entries", table.count_over(10));
    stream.synchronize()?;
    Ok(())
}
