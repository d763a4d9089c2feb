//! case: a histogram with a read-write and a read-only mapping of one allocation (runtime layer); the kernel, in another module, fences the alias proxy in a device helper between writing and reading
//! expect: none
mod sub;

use cuda_lint_runtime::{AccessFlags, Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, Result, Stream, VirtualRange};

pub struct HistogramPublisher {
    bins: Mapping,
    bins_ro: Mapping,
    pdf: DeviceBuffer<f32>,
    kernel: Kernel,
    nbins: u32,
}

impl HistogramPublisher {
    pub fn new(ctx: &Context, nbins: u32) -> Result<Self> {
        let module = ctx.load_cuda(sub::HIST_KERNELS)?;
        let gran = ctx.vmm_granularity()?;
        let bytes = (nbins as usize * 4).div_ceil(gran) * gran;
        let phys = PhysicalAllocation::new(ctx, bytes)?;
        let bins = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        let bins_ro = VirtualRange::reserve(ctx, bytes)?.map(&phys, 0)?;
        bins_ro.set_access(AccessFlags::Read)?;
        Ok(Self { bins, bins_ro, pdf: ctx.alloc_zeroed(nbins as usize)?, kernel: module.function("accumulate_publish")?, nbins })
    }

    pub fn publish(&mut self, stream: &Stream, pixels: &DeviceBuffer<u8>) -> Result<()> {
        stream.memset_d32_async(&mut self.bins, 0)?;
        let n = pixels.len() as u32;
        let cfg = LaunchConfig { grid: (1, 1, 1), block: (512, 1, 1), shared_mem_bytes: 0 };
        unsafe { stream.launch(&self.kernel, cfg, &[&self.bins, &self.bins_ro, pixels, &self.pdf, &n, &self.nbins]) }
    }
}

pub fn run(ctx: &Context, frames: usize) -> Result<()> {
    let stream = ctx.new_stream()?;
    let mut hist = HistogramPublisher::new(ctx, 256)?;
    let pixels = ctx.alloc_zeroed::<u8>(1920 * 1080)?;
    for _ in 0..frames {
        hist.publish(&stream, &pixels)?;
    }
    stream.synchronize()
}
