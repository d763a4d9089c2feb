//! case: KV-cache restore path; a block read from the disk tier is written by the host into an `alloc_pinned` (write-combined) buffer and uploaded on the offload stream; the host only writes that memory, and the pinned slice's drop waits for the upload (two streams, event tracking on)
//! expect: none

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DriverError};

/// Where evicted blocks live when they are not in GPU memory.
pub trait BlockSource {
    fn read_block(&mut self, seq_id: u64, dst: &mut [u16]) -> io::Result<()>;
}

pub struct DiskTier {
    file: File,
    block_bytes: u64,
    index: Vec<(u64, u64)>,
}

impl BlockSource for DiskTier {
    fn read_block(&mut self, seq_id: u64, dst: &mut [u16]) -> io::Result<()> {
        let &(_, offset) = self
            .index
            .iter()
            .find(|(s, _)| *s == seq_id)
            .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "sequence not on disk"))?;
        self.file.seek(SeekFrom::Start(offset))?;
        let mut raw = vec![0u8; self.block_bytes as usize];
        self.file.read_exact(&mut raw)?;
        for (d, b) in dst.iter_mut().zip(raw.chunks_exact(2)) {
            *d = u16::from_le_bytes([b[0], b[1]]);
        }
        Ok(())
    }
}

pub struct Restorer {
    ctx: Arc<CudaContext>,
    offload: Arc<CudaStream>,
    compute: Arc<CudaStream>,
    block_elems: usize,
}

#[derive(Debug)]
pub enum RestoreError {
    Io(io::Error),
    Cuda(DriverError),
}
impl From<io::Error> for RestoreError {
    fn from(e: io::Error) -> Self {
        RestoreError::Io(e)
    }
}
impl From<DriverError> for RestoreError {
    fn from(e: DriverError) -> Self {
        RestoreError::Cuda(e)
    }
}

impl Restorer {
    pub fn new(block_elems: usize) -> Result<Self, DriverError> {
        let ctx = CudaContext::new(0)?;
        let offload = ctx.new_stream()?;
        let compute = ctx.new_stream()?;
        Ok(Restorer { ctx, offload, compute, block_elems })
    }

    pub fn restore<S: BlockSource>(&self, src: &mut S, seq_id: u64, gpu_block: &mut CudaSlice<u16>) -> Result<(), RestoreError> {
        // Write-combined is the right choice for memory the CPU only fills for an upload.
        let mut staging = unsafe { self.ctx.alloc_pinned::<u16>(self.block_elems)? };
        src.read_block(seq_id, staging.as_mut_slice()?)?;
        self.offload.memcpy_htod(&staging, gpu_block)?;
        // The compute stream must see the restored block before attention reads it.
        self.compute.join(&self.offload)?;
        Ok(())
        // `staging` drops here: PinnedHostSlice::drop synchronizes its event before cuMemFreeHost.
    }
}
