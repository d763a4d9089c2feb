//! case: a tensor and a reinterpreting view of it are two VMM mappings (runtime layer) of one physical allocation passed to one kernel that writes through one and reads through the other, with `fence.proxy.alias` between the write and the read
//! expect: none

use cuda_lint_runtime::{Context, DeviceBuffer, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, VirtualRange};

const QUANT_SRC: &str = r#"
// Writes fp32 values through `f`, then reads the same bytes as u32 bit patterns through `bits`,
// a second mapping of the same physical memory.
extern "C" __global__ void quantize_bits(float* f, const unsigned* bits, const float* src,
                                         unsigned char* exps, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) f[i] = src[i] * 0.5f;
    asm volatile("fence.proxy.alias;" ::: "memory");
    if (i < n) exps[i] = (unsigned char)((bits[i] >> 23) & 0xff);
}
"#;

pub struct AliasedTensor {
    pub phys: PhysicalAllocation,
    pub as_f32: Mapping,
    pub as_u32: Mapping,
}

impl AliasedTensor {
    pub fn new(ctx: &Context, elems: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = (elems * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, bytes)?;
        let as_f32 = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let as_u32 = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        debug_assert!(as_f32.aliases(&as_u32));
        Ok(Self { phys, as_f32, as_u32 })
    }
}

pub fn exponent_histogram(ctx: &Context, values: &PinnedBuffer<f32>) -> Result<[u32; 256]> {
    let n = values.len() as u32;
    let stream = ctx.new_stream()?;
    let kernel = ctx.load_cuda(QUANT_SRC)?.function("quantize_bits")?;
    let tensor = AliasedTensor::new(ctx, values.len())?;

    let mut src: DeviceBuffer<f32> = ctx.alloc(values.len())?;
    let exps: DeviceBuffer<u8> = ctx.alloc(values.len())?;
    let mut exps_host: PinnedBuffer<u8> = ctx.alloc_pinned(values.len())?;

    unsafe { stream.copy_htod_async(&mut src, values)? };
    unsafe {
        stream.launch(
            &kernel,
            LaunchConfig::for_num_elems(n),
            &[&tensor.as_f32, &tensor.as_u32, &src, &exps, &n],
        )?
    };
    unsafe { stream.copy_dtoh_async(&mut exps_host, &exps)? };
    stream.synchronize()?;

    let mut hist = [0u32; 256];
    for &e in exps_host.iter() {
        hist[e as usize] += 1;
    }
    Ok(hist)
}
