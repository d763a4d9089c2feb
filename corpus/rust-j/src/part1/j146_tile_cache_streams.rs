//! case: map-tile cache decodes tiles into a VMM allocation through a writer mapping on the decode stream, while the render stream samples the same physical memory through a second, read-only-by-convention mapping; nothing orders the render launch after the decode launch
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

const TILE_SRC: &str = r#"
extern "C" __global__ void decode_tile(const unsigned char* packed, unsigned int* cache, int slot, int texels) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= texels) return;
    unsigned char v = packed[i];
    cache[slot * texels + i] = 0xff000000u | (v << 16) | (v << 8) | v;
}

extern "C" __global__ void sample_tiles(const unsigned int* cache, const int* slots, const float* uv,
                                        unsigned int* frame, int pixels, int tile_w) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= pixels) return;
    int s = slots[p];
    int tx = (int)(uv[2 * p] * (tile_w - 1)), ty = (int)(uv[2 * p + 1] * (tile_w - 1));
    frame[p] = cache[s * tile_w * tile_w + ty * tile_w + tx];
}
"#;

pub struct TileCache {
    _mem: PhysicalAllocation,
    writer: Mapping,
    reader: Mapping,
    tile_w: usize,
}

pub struct MapRenderer {
    decode_stream: Stream,
    render_stream: Stream,
    decode: Kernel,
    sample: Kernel,
    cache: TileCache,
}

impl MapRenderer {
    pub fn new(ctx: &Context, slots: usize, tile_w: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (slots * tile_w * tile_w * 4).div_ceil(gran) * gran;
        let mem = PhysicalAllocation::new(ctx, bytes)?;
        let writer = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        let reader = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        let module = ctx.load_cuda(TILE_SRC)?;
        Ok(Self {
            decode_stream: ctx.new_stream()?,
            render_stream: ctx.new_stream()?,
            decode: module.function("decode_tile")?,
            sample: module.function("sample_tiles")?,
            cache: TileCache { _mem: mem, writer, reader, tile_w },
        })
    }

    pub fn frame(
        &mut self,
        incoming: &[(i32, &DeviceBuffer<u8>)],
        slots: &DeviceBuffer<i32>,
        uv: &DeviceBuffer<f32>,
        frame: &DeviceBuffer<u32>,
    ) -> Result<()> {
        let texels = (self.cache.tile_w * self.cache.tile_w) as i32;
        for (slot, packed) in incoming {
            unsafe {
                self.decode_stream.launch(&self.decode, LaunchConfig::for_num_elems(texels as u32), &[*packed, &self.cache.writer, slot, &texels])?;
            }
        }
        let (pixels, tw) = (frame.len() as i32, self.cache.tile_w as i32);
        let reader = &self.cache.reader;
        unsafe {
            self.render_stream.launch(&self.sample, LaunchConfig::for_num_elems(pixels as u32), &[reader, slots, uv, frame, &pixels, &tw])?; // EXPECT: unfenced_vmm_alias
        }
        self.render_stream.synchronize()?;
        self.decode_stream.synchronize()?;
        Ok(())
    }
}
