//! case: checksum offload for a packet pipeline; frames go up through write-combined staging (only written), but the computed checksums also land in memory from cudarc's `alloc_pinned`, which is write-combined, and the verification loop reads them on the host after the synchronize
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const SLOT: usize = 2048;

const CSUM_SRC: &str = r#"
extern "C" __global__ void inet_csum(const unsigned char* frames, const unsigned* lens, unsigned* sums, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* f = frames + (size_t)i * 2048;
    unsigned long long acc = 0;
    for (unsigned b = 0; b + 1 < lens[i]; b += 2) acc += (f[b] << 8) | f[b + 1];
    while (acc >> 16) acc = (acc & 0xffff) + (acc >> 16);
    sums[i] = (unsigned)(~acc & 0xffff);
}
"#;

pub struct ChecksumOffload {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    frames_staging: PinnedHostSlice<u8>,
    lens_staging: PinnedHostSlice<u32>,
    sums_dev: CudaSlice<u32>,
    sums_host: PinnedHostSlice<u32>,
    batch: usize,
}

impl ChecksumOffload {
    pub fn new(ctx: &Arc<CudaContext>, batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let kernel = ctx.load_module(compile_ptx(CSUM_SRC)?)?.load_function("inet_csum")?;
        unsafe {
            Ok(Self {
                frames_staging: ctx.alloc_pinned::<u8>(batch * SLOT)?,
                lens_staging: ctx.alloc_pinned::<u32>(batch)?,
                sums_dev: stream.alloc_zeros::<u32>(batch)?,
                sums_host: ctx.alloc_pinned::<u32>(batch)?,
                stream,
                kernel,
                batch,
            })
        }
    }

    /// Returns the indices of frames whose stored checksum does not match.
    pub fn verify(&mut self, frames: &[(&[u8], u16)]) -> Result<Vec<usize>, DriverError> {
        let n = frames.len().min(self.batch);
        {
            let staging = self.frames_staging.as_mut_slice()?;
            let lens = self.lens_staging.as_mut_slice()?;
            for (i, (frame, _)) in frames.iter().take(n).enumerate() {
                let len = frame.len().min(SLOT);
                staging[i * SLOT..i * SLOT + len].copy_from_slice(&frame[..len]);
                lens[i] = len as u32;
            }
        }
        let frames_dev = self.stream.clone_htod(&self.frames_staging)?;
        let lens_dev = self.stream.clone_htod(&self.lens_staging)?;
        let count = n as u32;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&frames_dev)
                .arg(&lens_dev)
                .arg(&mut self.sums_dev)
                .arg(&count)
                .launch(LaunchConfig::for_num_elems(count))?
        };
        self.stream.memcpy_dtoh(&self.sums_dev, &mut self.sums_host)?;
        self.stream.synchronize()?;

        let bad: Vec<usize> = self.sums_host.as_slice()?.iter().zip(frames).enumerate().filter(|(_, (got, (_, want)))| **got != u32::from(*want)).map(|(i, _)| i).collect(); // EXPECT: write_combined_host_read
        Ok(bad)
    }
}
