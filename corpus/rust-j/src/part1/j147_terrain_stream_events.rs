//! case: terrain-streaming system writes heightmap chunks through one VMM mapping on its upload stream and the renderer reads them through a second mapping of the same allocation on the draw stream, which waits on an event recorded after the writes, and the next write waits on an event recorded after the draw: the two aliases are used by ordered work only
//! expect: none

use cuda_lint_runtime::{
    Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const TERRAIN_SRC: &str = r#"
extern "C" __global__ void unpack_chunk(const unsigned short* packed, float* heights, int chunk, int texels, float scale) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < texels) heights[chunk * texels + i] = packed[i] * scale;
}

extern "C" __global__ void build_normals(const float* heights, float* normals, int chunk, int w) {
    int x = blockIdx.x * blockDim.x + threadIdx.x;
    int y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < 1 || y < 1 || x >= w - 1 || y >= w - 1) return;
    const float* h = heights + chunk * w * w;
    float dx = h[y * w + x + 1] - h[y * w + x - 1];
    float dy = h[(y + 1) * w + x] - h[(y - 1) * w + x];
    float inv = rsqrtf(dx * dx + dy * dy + 4.0f);
    int o = 3 * (y * w + x);
    normals[o] = -dx * inv; normals[o + 1] = -dy * inv; normals[o + 2] = 2.0f * inv;
}
"#;

pub struct TerrainStreamer {
    upload: Stream,
    draw: Stream,
    chunk_ready: Event,
    chunk_drawn: Event,
    unpack: Kernel,
    normals_k: Kernel,
    _mem: PhysicalAllocation,
    write_view: Mapping,
    read_view: Mapping,
    packed_host: PinnedBuffer<u16>,
    packed: DeviceBuffer<u16>,
    normals: DeviceBuffer<f32>,
    w: usize,
}

impl TerrainStreamer {
    pub fn new(ctx: &Context, chunks: usize, w: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (chunks * w * w * 4).div_ceil(gran) * gran;
        let mem = PhysicalAllocation::new(ctx, bytes)?;
        let write_view = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        let read_view = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        let module = ctx.load_cuda(TERRAIN_SRC)?;
        Ok(Self {
            upload: ctx.new_stream()?,
            draw: ctx.new_stream()?,
            chunk_ready: ctx.new_event()?,
            chunk_drawn: ctx.new_event()?,
            unpack: module.function("unpack_chunk")?,
            normals_k: module.function("build_normals")?,
            _mem: mem,
            write_view,
            read_view,
            packed_host: ctx.alloc_pinned(w * w)?,
            packed: ctx.alloc(w * w)?,
            normals: ctx.alloc(3 * w * w)?,
            w,
        })
    }

    pub fn stream_in(&mut self, chunk: usize, tile: &[u16], scale: f32) -> Result<()> {
        self.upload.synchronize()?;
        self.packed_host.copy_from_slice(tile);
        let (c, texels) = (chunk as i32, (self.w * self.w) as i32);
        // The previous draw may still read the aliased heights: order the next write after it.
        self.upload.wait_event(&self.chunk_drawn)?;
        unsafe {
            self.upload.copy_htod_async(&mut self.packed, &self.packed_host)?;
            self.upload.launch(&self.unpack, LaunchConfig::for_num_elems(texels as u32), &[&self.packed, &self.write_view, &c, &texels, &scale])?;
        }
        self.upload.record_event(&self.chunk_ready)?;
        self.draw.wait_event(&self.chunk_ready)?;
        let w = self.w as i32;
        let cfg = LaunchConfig { grid: ((self.w as u32).div_ceil(16), (self.w as u32).div_ceil(16), 1), block: (16, 16, 1), shared_mem_bytes: 0 };
        unsafe { self.draw.launch(&self.normals_k, cfg, &[&self.read_view, &self.normals, &c, &w])? };
        self.draw.record_event(&self.chunk_drawn)?;
        Ok(())
    }

    pub fn finish(&self) -> Result<()> {
        self.draw.synchronize()?;
        self.upload.synchronize()
    }
}
