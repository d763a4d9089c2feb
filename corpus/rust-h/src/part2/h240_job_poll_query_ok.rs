//! case: cooperative job runner on the runtime layer; after enqueuing a job's upload, kernel and readback it does other host work and polls `stream.query()` until it reports the stream idle, and only then reads the pinned result; its vendor path hands the pinned bins to an external C library and reads them after the library's own `ec_wait` returns, which is unknowable here and no misuse by the CUDA docs
//! expect: none

use std::collections::VecDeque;

use cudarc::driver::sys::CUstream;
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, Result, Stream};

// Vendor entropy-coding library (C API): its histogram job writes the bins into host memory,
// and `ec_wait` blocks until the job has finished.
#[link(name = "entropycodec")]
unsafe extern "C" {
    fn ec_histogram_async(input: u64, n: u32, bins_host: *mut u32, stream: CUstream) -> i64;
    fn ec_wait(job: i64) -> i32;
}

fn entropy_of(bins: &[u32], n: usize) -> f64 {
    let total = n.max(1) as f64;
    bins.iter().filter(|&&c| c > 0).map(|&c| {
        let p = c as f64 / total;
        -p * p.log2()
    }).sum()
}

const HIST_SRC: &str = r#"
extern "C" __global__ void byte_histogram(const unsigned char* data, unsigned* bins, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&bins[data[i]], 1u);
}
"#;

pub trait HostTask {
    fn step(&mut self) -> bool;
}

pub struct JobRunner {
    stream: Stream,
    hist: Kernel,
    input: PinnedBuffer<u8>,
    d_input: DeviceBuffer<u8>,
    d_bins: DeviceBuffer<u32>,
    bins: PinnedBuffer<u32>,
    background: VecDeque<Box<dyn HostTask>>,
}

impl JobRunner {
    pub fn new(ctx: &Context, max_bytes: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            hist: ctx.load_cuda(HIST_SRC)?.function("byte_histogram")?,
            input: ctx.alloc_pinned::<u8>(max_bytes)?,
            d_input: ctx.alloc::<u8>(max_bytes)?,
            d_bins: ctx.alloc::<u32>(256)?,
            bins: ctx.alloc_pinned::<u32>(256)?,
            background: VecDeque::new(),
        })
    }

    pub fn add_background(&mut self, task: Box<dyn HostTask>) {
        self.background.push_back(task);
    }

    pub fn entropy(&mut self, data: &[u8]) -> Result<f64> {
        let n = data.len().min(self.input.len());
        self.input[..n].copy_from_slice(&data[..n]);
        self.input[n..].fill(0);
        unsafe { self.stream.copy_htod_async(&mut self.d_input, &self.input)? };
        self.stream.memset_d32_async(&mut self.d_bins, 0)?;
        let n32 = n as u32;
        unsafe { self.stream.launch(&self.hist, LaunchConfig::for_num_elems(n32), &[&self.d_input, &self.d_bins, &n32])? };
        unsafe { self.stream.copy_dtoh_async(&mut self.bins, &self.d_bins)? };

        while !self.stream.query()? {
            match self.background.pop_front() {
                Some(mut task) => {
                    if task.step() {
                        self.background.push_back(task);
                    }
                }
                None => std::thread::yield_now(),
            }
        }

        Ok(entropy_of(&self.bins, n))
    }

    /// Same measure through the vendor library, on the input staged by the last `entropy` call.
    pub fn entropy_vendor(&mut self, n: usize) -> Result<Option<f64>> {
        let input = self.d_input.device_ptr().as_raw();
        let job = unsafe { ec_histogram_async(input, n as u32, self.bins.as_mut_ptr(), self.stream.as_raw()) };
        if job < 0 || unsafe { ec_wait(job) } != 0 {
            return Ok(None);
        }
        Ok(Some(entropy_of(&self.bins, n)))
    }
}
