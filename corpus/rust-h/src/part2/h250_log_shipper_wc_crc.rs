//! case: log shipper that frames records into write-combined staging from cudarc's `alloc_pinned` (fine for the upload) but computes the batch CRC by reading the framed bytes back out of that staging before uploading them
//! expect: write_combined_host_read=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const INDEX_SRC: &str = r#"
extern "C" __global__ void newline_index(const unsigned char* buf, unsigned* counts, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && buf[i] == '\n') atomicAdd(counts, 1u);
}
"#;

fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in bytes {
        crc ^= b as u32;
        for _ in 0..8 {
            crc = (crc >> 1) ^ (0xEDB8_8320 & (crc & 1).wrapping_neg());
        }
    }
    !crc
}

pub struct ShippedBatch {
    pub bytes: usize,
    pub crc: u32,
}

pub struct LogShipper {
    stream: Arc<CudaStream>,
    index: CudaFunction,
    staging: PinnedHostSlice<u8>,
    device: CudaSlice<u8>,
    counts: CudaSlice<u32>,
}

impl LogShipper {
    pub fn new(ctx: &Arc<CudaContext>, batch_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            index: ctx.load_module(compile_ptx(INDEX_SRC)?)?.load_function("newline_index")?,
            staging: unsafe { ctx.alloc_pinned::<u8>(batch_bytes)? },
            device: stream.alloc_zeros::<u8>(batch_bytes)?,
            counts: stream.alloc_zeros::<u32>(1)?,
            stream,
        })
    }

    pub fn ship(&mut self, records: &[&str]) -> Result<ShippedBatch, DriverError> {
        let len = {
            let buf = self.staging.as_mut_slice()?;
            let mut off = 0;
            for rec in records {
                let line = rec.as_bytes();
                if off + line.len() + 1 > buf.len() {
                    break;
                }
                buf[off..off + line.len()].copy_from_slice(line);
                buf[off + line.len()] = b'\n';
                off += line.len() + 1;
            }
            buf[off..].fill(0);
            off
        };
        let crc = crc32(&self.staging.as_slice()?[..len]); // EXPECT: write_combined_host_read
        self.stream.memcpy_htod(&self.staging, &mut self.device)?;
        self.stream.memset_zeros(&mut self.counts)?;
        let n = len as u32;
        unsafe { self.stream.launch_builder(&self.index).arg(&self.device).arg(&mut self.counts).arg(&n).launch(LaunchConfig::for_num_elems(n))? };
        Ok(ShippedBatch { bytes: len, crc })
    }
}
