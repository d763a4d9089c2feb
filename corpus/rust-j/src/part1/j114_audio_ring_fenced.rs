//! case: audio resampler writes each frame into a ring through one VMM mapping and reads it back through a second mapping of the same physical allocation in the same kernel; every thread reads only what it wrote itself and executes `fence.proxy.alias` between the write and the aliased read, as the programming guide requires
//! expect: none

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const RESAMPLE_SRC: &str = r#"
extern "C" __global__ void resample_into_ring(float* ring_w, const float* ring_r, const float* pcm, int frames,
                                              float ratio, int head, int cap, float* peak_out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= frames) return;
    float src = i * ratio;
    int s0 = (int)src;
    float t = src - s0;
    float v = pcm[s0] * (1.0f - t) + pcm[s0 + 1] * t;
    int slot = (head + i) % cap;
    ring_w[slot] = v;
    asm volatile("fence.proxy.alias;" ::: "memory");
    float back = ring_r[slot];
    peak_out[i] = fabsf(back);
}
"#;

struct AliasedRing {
    _mem: PhysicalAllocation,
    writer: Mapping,
    reader: Mapping,
    cap_floats: usize,
}

pub struct Resampler {
    stream: Stream,
    kernel: Kernel,
    ring: AliasedRing,
    head: usize,
    pcm: DeviceBuffer<f32>,
    peaks: DeviceBuffer<f32>,
    peaks_host: PinnedBuffer<f32>,
    pcm_host: PinnedBuffer<f32>,
}

impl Resampler {
    pub fn new(ctx: &Context, ring_seconds: f32, rate: usize, block: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let bytes = ((ring_seconds * rate as f32) as usize * 4).div_ceil(gran) * gran;
        let mem = PhysicalAllocation::new(ctx, bytes)?;
        let writer = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        let reader = VirtualRange::reserve(ctx, bytes)?.map(&mem, 0)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(RESAMPLE_SRC)?.function("resample_into_ring")?,
            ring: AliasedRing { _mem: mem, writer, reader, cap_floats: bytes / 4 },
            head: 0,
            pcm: ctx.alloc::<f32>(2 * block + 1)?,
            peaks: ctx.alloc::<f32>(block)?,
            peaks_host: ctx.alloc_pinned::<f32>(block)?,
            pcm_host: ctx.alloc_pinned::<f32>(2 * block + 1)?,
        })
    }

    pub fn push(&mut self, input: &[f32], ratio: f32) -> Result<f32> {
        let frames = self.peaks.len().min(((input.len().saturating_sub(1)) as f32 / ratio) as usize);
        let m = input.len().min(self.pcm_host.len());
        self.pcm_host[..m].copy_from_slice(&input[..m]);
        unsafe { self.stream.copy_htod_async(&mut self.pcm, &self.pcm_host)? };
        let (f, head, cap) = (frames as i32, self.head as i32, self.ring.cap_floats as i32);
        let (w, r) = (&self.ring.writer, &self.ring.reader);
        unsafe {
            self.stream.launch(&self.kernel, LaunchConfig::for_num_elems(frames as u32), &[w, r, &self.pcm, &f, &ratio, &head, &cap, &self.peaks])?;
            self.stream.copy_dtoh_async(&mut self.peaks_host, &self.peaks)?;
        }
        self.stream.synchronize()?;
        self.head = (self.head + frames) % self.ring.cap_floats;
        Ok(self.peaks_host[..frames].iter().cloned().fold(0.0, f32::max))
    }
}
