//! case: FASTQ quality-score binning on a `libc::malloc` buffer that is page-locked in place with `cuMemHostRegister` for the async copies both ways; after `cuStreamSynchronize` the host reads it, then `cuMemHostUnregister` and `libc::free` release it: each release matches its allocator
//! expect: none

use std::ffi::c_void;
use cudarc::driver::{result, sys, CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BIN_QUAL_SRC: &str = r#"
// Illumina 8-level binning of Phred+33 quality characters, in place.
extern "C" __global__ void bin_quals(unsigned char* q, long long n) {
    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int p = q[i] - 33;
    int b = p < 2 ? p : p < 10 ? 6 : p < 20 ? 15 : p < 25 ? 22 : p < 30 ? 27 : p < 35 ? 33 : p < 40 ? 37 : 40;
    q[i] = (unsigned char)(b + 33);
}
"#;

pub struct BinnedQualities {
    pub data: Vec<u8>,
    pub histogram: [u64; 8],
}

pub fn bin_quality_block(qualities: &[u8]) -> Result<BinnedQualities, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_module(compile_ptx(BIN_QUAL_SRC)?)?.load_function("bin_quals")?;
    let n = qualities.len();

    unsafe {
        let host = libc::malloc(n) as *mut u8;
        if host.is_null() {
            return Err("out of host memory".into());
        }
        std::ptr::copy_nonoverlapping(qualities.as_ptr(), host, n);
        sys::cuMemHostRegister_v2(host as *mut c_void, n, 0).result()?;

        let d_q = result::malloc_async(stream.cu_stream(), n)?;
        sys::cuMemcpyHtoDAsync_v2(d_q, host as *const c_void, n, stream.cu_stream()).result()?;
        let n_i = n as i64;
        let mut launch = stream.launch_builder(&kernel);
        launch.arg(&d_q).arg(&n_i);
        launch.launch(LaunchConfig::for_num_elems(n as u32))?;
        sys::cuMemcpyDtoHAsync_v2(host as *mut c_void, d_q, n, stream.cu_stream()).result()?;
        result::free_async(d_q, stream.cu_stream())?;
        stream.synchronize()?;

        let binned = std::slice::from_raw_parts(host, n);
        let mut histogram = [0u64; 8];
        const LEVELS: [u8; 8] = [33, 34, 39, 48, 55, 60, 66, 70];
        for &q in binned {
            if let Some(level) = LEVELS.iter().position(|&l| l >= q) {
                histogram[level] += 1;
            }
        }
        let data = binned.to_vec();

        sys::cuMemHostUnregister(host as *mut c_void).result()?;
        libc::free(host as *mut c_void);
        Ok(BinnedQualities { data, histogram })
    }
}
