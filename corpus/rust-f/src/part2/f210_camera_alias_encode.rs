//! case: camera pipeline demosaics into one VMM view on the capture stream and the encoder reads the same physical frame through a second view on its own stream; events order both directions (frame ready before encode, encode done before the next demosaic)
//! expect: none
use cuda_lint_runtime::{Context, DeviceBuffer, Event, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};
use std::sync::mpsc;

const SRC: &str = r#"
extern "C" __global__ void demosaic(const unsigned short* bayer, unsigned char* rgb, unsigned int w, unsigned int h) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y;
    if (x >= w || y >= h) return;
    unsigned short v = bayer[y * w + x] >> 4;
    unsigned int o = 3 * (y * w + x);
    rgb[o] = (unsigned char)v; rgb[o + 1] = (unsigned char)v; rgb[o + 2] = (unsigned char)v;
}

extern "C" __global__ void encode_dct(const unsigned char* rgb, short* coeffs, unsigned int w, unsigned int h) {
    unsigned int x = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int y = blockIdx.y;
    if (x >= w || y >= h) return;
    unsigned int o = 3 * (y * w + x);
    coeffs[y * w + x] = (short)((rgb[o] * 77 + rgb[o + 1] * 150 + rgb[o + 2] * 29) >> 8) - 128;
}
"#;

pub struct FramePipeline {
    capture: Stream,
    encoder: Stream,
    frame_ready: Event,
    frame_consumed: Event,
    demosaic: Kernel,
    encode: Kernel,
    rgb_writer: Mapping,
    rgb_reader: Mapping,
    width: u32,
    height: u32,
}

impl FramePipeline {
    pub fn new(ctx: &Context, width: u32, height: u32) -> Result<FramePipeline> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (3 * width as usize * height as usize).div_ceil(gran) * gran;
        let frame = PhysicalAllocation::new(ctx, bytes)?;
        let module = ctx.load_cuda(SRC)?;
        Ok(FramePipeline {
            capture: ctx.new_stream()?,
            encoder: ctx.new_stream()?,
            frame_ready: ctx.new_event()?,
            frame_consumed: ctx.new_event()?,
            demosaic: module.function("demosaic")?,
            encode: module.function("encode_dct")?,
            rgb_writer: VirtualRange::reserve(ctx, bytes)?.map(&frame, 0)?,
            rgb_reader: VirtualRange::reserve(ctx, bytes)?.map(&frame, 0)?,
            width,
            height,
        })
    }

    fn cfg(&self) -> LaunchConfig {
        LaunchConfig { grid: (self.width.div_ceil(128), self.height, 1), block: (128, 1, 1), shared_mem_bytes: 0 }
    }

    pub fn submit(&self, bayer: &DeviceBuffer<u16>, coeffs: &mut DeviceBuffer<i16>) -> Result<()> {
        let (w, h) = (self.width, self.height);
        // The previous frame's encode must be done reading before the view is overwritten.
        self.capture.wait_event(&self.frame_consumed)?;
        unsafe {
            self.capture.launch(&self.demosaic, self.cfg(), &[bayer, &self.rgb_writer, &w, &h])?;
        }
        self.capture.record_event(&self.frame_ready)?;
        self.encoder.wait_event(&self.frame_ready)?;
        unsafe {
            self.encoder.launch(&self.encode, self.cfg(), &[&self.rgb_reader, &*coeffs, &w, &h])?;
        }
        self.encoder.record_event(&self.frame_consumed)?;
        Ok(())
    }

    pub fn drain(&self) -> Result<()> {
        self.capture.synchronize()?;
        self.encoder.synchronize()
    }
}

/// Frames arrive from the sensor thread already on the device.
pub fn run(ctx: &Context, rx: mpsc::Receiver<DeviceBuffer<u16>>, width: u32, height: u32) -> Result<usize> {
    let pipe = FramePipeline::new(ctx, width, height)?;
    let mut coeffs = ctx.alloc::<i16>((width * height) as usize)?;
    let mut frames = 0;
    let mut in_flight = Vec::new();
    while let Ok(bayer) = rx.recv() {
        pipe.submit(&bayer, &mut coeffs)?;
        in_flight.push(bayer);
        frames += 1;
        if in_flight.len() == 4 {
            pipe.drain()?;
            in_flight.clear();
        }
    }
    pipe.drain()?;
    Ok(frames)
}
