//! case: video encoder worker reads the encoded bitstream back into cudarc's `alloc_pinned` buffer (write-combined in cudarc 0.19.10) and, after synchronizing, computes the segment CRC and copies the bytes out of it on the host: uncached reads of write-combined memory
//! expect: write_combined_host_read=1

use std::sync::mpsc::Sender;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError, PinnedHostSlice};

pub struct EncodedSegment {
    pub index: u64,
    pub crc: u32,
    pub bytes: Vec<u8>,
}

fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &b in data {
        crc ^= b as u32;
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

pub struct SegmentSink {
    stream: Arc<CudaStream>,
    readback: PinnedHostSlice<u8>,
    out: Sender<EncodedSegment>,
    next_index: u64,
}

impl SegmentSink {
    pub fn new(ctx: &Arc<CudaContext>, max_segment: usize, out: Sender<EncodedSegment>) -> Result<Self, DriverError> {
        let stream = ctx.new_stream()?;
        // "pinned = fast", so the readback buffer uses the convenience allocator
        let readback = unsafe { ctx.alloc_pinned::<u8>(max_segment)? };
        Ok(Self { stream, readback, out, next_index: 0 })
    }

    /// `bitstream` holds `used` valid bytes produced by the encode kernels on `self.stream`.
    pub fn emit(&mut self, bitstream: &CudaSlice<u8>, used: usize) -> Result<(), DriverError> {
        let view = bitstream.slice(..used);
        self.stream.memcpy_dtoh(&view, &mut self.readback)?;
        self.stream.synchronize()?;
        let crc = crc32(&self.readback.as_slice()?[..used]); // EXPECT: write_combined_host_read
        let bytes = self.readback.as_slice()?[..used].to_vec();
        let seg = EncodedSegment { index: self.next_index, crc, bytes };
        self.next_index += 1;
        let _ = self.out.send(seg);
        Ok(())
    }
}
