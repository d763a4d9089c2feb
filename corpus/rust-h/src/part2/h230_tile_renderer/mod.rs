//! case: tile renderer of a game engine using the runtime layer; the screenshot readback buffer is allocated with `PinnedFlags { write_combined: true }` (meant as a fast path) and, after the synchronized copy, the host reads every pixel out of it to encode the image
//! expect: write_combined_host_read=1

mod capture;
mod kernels;

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

pub struct TileRenderer {
    stream: Stream,
    shade: Kernel,
    framebuffer: DeviceBuffer<u32>,
    readback: PinnedBuffer<u32>,
    width: usize,
    height: usize,
    frame: u32,
}

impl TileRenderer {
    pub fn new(ctx: &Context, width: usize, height: usize) -> Result<Self> {
        let readback_flags = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Self {
            stream: ctx.new_stream()?,
            shade: kernels::load_shader(ctx)?,
            framebuffer: ctx.alloc_zeroed::<u32>(width * height)?,
            readback: ctx.alloc_pinned_with_flags::<u32>(width * height, readback_flags)?,
            width,
            height,
            frame: 0,
        })
    }

    pub fn render(&mut self) -> Result<()> {
        let (w, h, t) = (self.width as u32, self.height as u32, self.frame);
        let cfg = LaunchConfig { grid: (w.div_ceil(16), h.div_ceil(16), 1), block: (16, 16, 1), shared_mem_bytes: 0 };
        unsafe { self.stream.launch(&self.shade, cfg, &[&self.framebuffer, &w, &h, &t])? };
        self.frame = self.frame.wrapping_add(1);
        Ok(())
    }

    /// Binary PPM of the last rendered frame.
    pub fn screenshot(&mut self) -> Result<Vec<u8>> {
        unsafe { self.stream.copy_dtoh_async(&mut self.readback, &self.framebuffer)? };
        self.stream.synchronize()?;
        let pixels: Vec<u32> = self.readback.to_vec(); // EXPECT: write_combined_host_read
        Ok(capture::encode_ppm(&pixels, self.width, self.height))
    }
}
