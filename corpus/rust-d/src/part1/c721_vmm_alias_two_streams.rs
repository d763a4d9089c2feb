//! case: a transcoder (runtime layer VMM) shares one physical frame buffer between its decode and encode stages through two mappings; the decode kernel writes through one mapping on the decode stream and the encode kernel reads through the other on the encode stream, with no event ordering the two
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub const STAGES_CU: &str = r#"
extern "C" __global__ void unpack_nv12(const unsigned char* bitstream, unsigned char* frame, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) frame[i] = bitstream[i] ^ 0x80;   // stand-in for the real entropy decode
}
extern "C" __global__ void downsample_luma(const unsigned char* frame, int width, int height,
                                           unsigned char* half) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
    if (x >= width / 2 || y >= height / 2) return;
    const unsigned char* r0 = frame + (2 * y) * width + 2 * x;
    half[y * (width / 2) + x] = (unsigned char)((r0[0] + r0[1] + r0[width] + r0[width + 1] + 2) / 4);
}
"#;

pub trait Stage {
    fn stream(&self) -> &Stream;
}

pub struct DecodeStage {
    stream: Stream,
    unpack: Kernel,
    frame: Mapping,
}

pub struct EncodeStage {
    stream: Stream,
    downsample: Kernel,
    frame: Mapping,
    half: DeviceBuffer<u8>,
}

impl Stage for DecodeStage {
    fn stream(&self) -> &Stream {
        &self.stream
    }
}

impl Stage for EncodeStage {
    fn stream(&self) -> &Stream {
        &self.stream
    }
}

pub fn build(ctx: &Context, width: usize, height: usize) -> Result<(DecodeStage, EncodeStage)> {
    let gran = ctx.vmm_granularity()?;
    let bytes = (width * height * 3 / 2).next_multiple_of(gran);
    let physical = PhysicalAllocation::new(ctx, bytes)?;
    let module = ctx.load_cuda(STAGES_CU)?;
    let decode = DecodeStage {
        stream: ctx.new_stream()?,
        unpack: module.function("unpack_nv12")?,
        frame: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
    };
    let encode = EncodeStage {
        stream: ctx.new_stream()?,
        downsample: module.function("downsample_luma")?,
        frame: VirtualRange::reserve(ctx, bytes)?.map(&physical, 0)?,
        half: ctx.alloc_zeroed::<u8>(width * height / 4)?,
    };
    Ok((decode, encode))
}

pub fn transcode_frame(dec: &DecodeStage, enc: &mut EncodeStage, bitstream: &DeviceBuffer<u8>, width: i32, height: i32) -> Result<()> {
    let n = (width * height * 3 / 2) as u32;
    unsafe {
        dec.stream.launch(&dec.unpack, LaunchConfig::for_num_elems(n), &[bitstream, &dec.frame, &(n as i32)])?;
    }
    let cfg = LaunchConfig { grid: ((width as u32 / 2).div_ceil(128), height as u32 / 2, 1), block: (128, 1, 1), shared_mem_bytes: 0 };
    unsafe {
        enc.stream.launch(&enc.downsample, cfg, &[&enc.frame, &width, &height, &mut enc.half])?; // EXPECT: unfenced_vmm_alias
    }
    enc.stream().synchronize()?;
    dec.stream().synchronize()
}
