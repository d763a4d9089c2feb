use std::sync::mpsc::Sender;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const STATUS_SRC: &str = r#"
extern "C" __global__ void status_classes(const unsigned short* codes, unsigned n, unsigned* counts) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        unsigned c = codes[i] / 100u;
        if (c >= 1u && c <= 5u) atomicAdd(&counts[c - 1u], 1u);
    }
}
"#;

#[derive(Debug, Clone)]
pub struct Partial {
    pub shard: usize,
    pub counts: [u32; 5],
}

pub struct ShardWorker {
    id: usize,
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    codes_host: PinnedHostSlice<u16>,
    codes_dev: CudaSlice<u16>,
    counts_dev: CudaSlice<u32>,
    counts_host: PinnedHostSlice<u32>,
}

impl ShardWorker {
    pub fn new(ctx: &Arc<CudaContext>, id: usize, chunk: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let kernel = ctx.load_module(compile_ptx(STATUS_SRC)?)?.load_function("status_classes")?;
        Ok(Self {
            id,
            codes_host: unsafe { ctx.alloc_pinned_with_flags::<u16>(chunk, 0)? },
            codes_dev: stream.alloc_zeros::<u16>(chunk)?,
            counts_dev: stream.alloc_zeros::<u32>(5)?,
            counts_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(5, 0)? },
            stream,
            kernel,
        })
    }

    pub fn run(&mut self, codes: &[u16], out: &Sender<Partial>) -> Result<(), DriverError> {
        let chunk = self.codes_host.len();
        for piece in codes.chunks(chunk) {
            self.codes_host.as_mut_slice()?[..piece.len()].copy_from_slice(piece);
            self.stream.memcpy_htod(&self.codes_host, &mut self.codes_dev)?;
            self.stream.memset_zeros(&mut self.counts_dev)?;
            let n = piece.len() as u32;
            unsafe { self.stream.launch_builder(&self.kernel).arg(&self.codes_dev).arg(&n).arg(&mut self.counts_dev).launch(LaunchConfig::for_num_elems(n)) }?;
            self.stream.memcpy_dtoh(&self.counts_dev, &mut self.counts_host)?;
            self.stream.synchronize()?;
            let mut counts = [0u32; 5];
            counts.copy_from_slice(&self.counts_host.as_slice()?[..5]);
            let _ = out.send(Partial { shard: self.id, counts });
        }
        Ok(())
    }
}
