//! case: virtual-texture streamer keeps its page table in a cudarc `UnifiedSlice` allocated attached to the host (`alloc_unified(len, false)`, CU_MEM_ATTACH_HOST) that only the CPU reads and writes, and updates it while the transcode kernel (which never receives it) runs on its stream
//! expect: none

use std::collections::VecDeque;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const TRANSCODE_SRC: &str = r#"
extern "C" __global__ void bc1_to_rgba(const unsigned int* blocks, unsigned int* rgba, int blocks_x, int nblocks) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nblocks) return;
    unsigned int c = blocks[2 * b], bits = blocks[2 * b + 1];
    unsigned int c0 = c & 0xffff;
    unsigned int r = (c0 >> 11) << 3, g = ((c0 >> 5) & 63) << 2, bl = (c0 & 31) << 3;
    int bx = b % blocks_x, by = b / blocks_x;
    for (int p = 0; p < 16; ++p) {
        unsigned int sel = (bits >> (2 * p)) & 3;
        rgba[(by * 4 + p / 4) * blocks_x * 4 + bx * 4 + p % 4] = (255u << 24) | ((bl >> sel) << 16) | ((g >> sel) << 8) | (r >> sel);
    }
}
"#;

pub const PAGE_BLOCKS: usize = 64 * 64;

pub struct PageRequest {
    pub virtual_page: u32,
    pub compressed: Vec<u32>,
}

pub struct TextureStreamer {
    stream: Arc<CudaStream>,
    transcode: CudaFunction,
    page_table: UnifiedSlice<u32>,
    staging: PinnedHostSlice<u32>,
    compressed: CudaSlice<u32>,
    physical: CudaSlice<u32>,
    free_slots: VecDeque<u32>,
}

impl TextureStreamer {
    pub fn new(ctx: &Arc<CudaContext>, virtual_pages: usize, physical_pages: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        Ok(Self {
            transcode: ctx.load_module(compile_ptx(TRANSCODE_SRC)?)?.load_function("bc1_to_rgba")?,
            page_table: unsafe { ctx.alloc_unified::<u32>(virtual_pages, false)? },
            staging: unsafe { ctx.alloc_pinned_with_flags::<u32>(2 * PAGE_BLOCKS, 0)? },
            compressed: stream.alloc_zeros(2 * PAGE_BLOCKS)?,
            physical: stream.alloc_zeros(physical_pages * PAGE_BLOCKS * 16)?,
            free_slots: (0..physical_pages as u32).collect(),
            stream,
        })
    }

    pub fn service(&mut self, req: &PageRequest) -> Result<Option<u32>, DriverError> {
        let Some(slot) = self.free_slots.pop_front() else { return Ok(None) };
        let n = req.compressed.len().min(self.staging.len());
        self.staging.as_mut_slice()?[..n].copy_from_slice(&req.compressed[..n]);
        self.stream.memcpy_htod(&self.staging, &mut self.compressed)?;
        let offset = slot as usize * PAGE_BLOCKS * 16;
        let mut dst = self.physical.slice_mut(offset..offset + PAGE_BLOCKS * 16);
        let (bx, nb) = (64i32, PAGE_BLOCKS as i32);
        unsafe {
            self.stream
                .launch_builder(&self.transcode)
                .arg(&self.compressed)
                .arg(&mut dst)
                .arg(&bx)
                .arg(&nb)
                .launch(LaunchConfig::for_num_elems(PAGE_BLOCKS as u32))?;
        }
        // CPU-side bookkeeping overlaps the transcode: the page table is host-attached.
        let table = self.page_table.as_mut_slice()?;
        let evicted = std::mem::replace(&mut table[req.virtual_page as usize], slot + 1);
        if evicted != 0 {
            self.free_slots.push_back(evicted - 1);
        }
        Ok(Some(slot))
    }
}
