//! case: snapshot compressor that uploads a 32-byte header from a stack array and reads 64 per-block sizes back into a stack array with cudarc's pageable copies (both far below 64 KiB; a device-to-pageable copy returns only when done), while the bulk payload goes through write-combined staging that the host only writes
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const BLOCKS: usize = 64;

const PACK_SRC: &str = r#"
extern "C" __global__ void pack_blocks(const unsigned* header, const unsigned char* payload, unsigned* sizes, unsigned block) {
    unsigned b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= 64) return;
    unsigned nz = 0;
    for (unsigned i = 0; i < block; ++i) nz += payload[b * block + i] != 0;
    sizes[b] = header[0] == 0x534e4150u ? nz + 8 : 0;
}
"#;

pub struct SnapshotPacker {
    stream: Arc<CudaStream>,
    pack: CudaFunction,
    staging: PinnedHostSlice<u8>,
    payload: CudaSlice<u8>,
    header_dev: CudaSlice<u32>,
    sizes_dev: CudaSlice<u32>,
    block: usize,
}

impl SnapshotPacker {
    pub fn new(ctx: &Arc<CudaContext>, block: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            pack: ctx.load_module(compile_ptx(PACK_SRC)?)?.load_function("pack_blocks")?,
            staging: unsafe { ctx.alloc_pinned::<u8>(BLOCKS * block)? },
            payload: stream.alloc_zeros::<u8>(BLOCKS * block)?,
            header_dev: stream.alloc_zeros::<u32>(8)?,
            sizes_dev: stream.alloc_zeros::<u32>(BLOCKS)?,
            stream,
            block,
        })
    }

    pub fn pack(&mut self, snapshot: &[u8], generation: u32) -> Result<u64, DriverError> {
        let header: [u32; 8] = [0x534e_4150, generation, snapshot.len() as u32, self.block as u32, 0, 0, 0, 0];
        self.stream.memcpy_htod(&header, &mut self.header_dev)?;

        let staging = self.staging.as_mut_slice()?;
        let n = snapshot.len().min(staging.len());
        staging[..n].copy_from_slice(&snapshot[..n]);
        staging[n..].fill(0);
        self.stream.memcpy_htod(&self.staging, &mut self.payload)?;

        let block = self.block as u32;
        unsafe {
            self.stream
                .launch_builder(&self.pack)
                .arg(&self.header_dev)
                .arg(&self.payload)
                .arg(&mut self.sizes_dev)
                .arg(&block)
                .launch(LaunchConfig::for_num_elems(BLOCKS as u32))?
        };
        let mut sizes = [0u32; BLOCKS];
        self.stream.memcpy_dtoh(&self.sizes_dev, &mut sizes)?;
        Ok(sizes.iter().map(|&s| s as u64).sum())
    }
}
