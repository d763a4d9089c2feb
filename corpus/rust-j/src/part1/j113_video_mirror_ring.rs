//! case: video packetizer keeps its bitstream ring in one physical allocation mapped twice (a writer view and a read-only view for the checksum stage); one kernel appends the NAL through the writer view and checksums it through the reader view in the same launch, with `__syncthreads` but no `fence.proxy.alias` between
//! expect: unfenced_vmm_alias=1

use cuda_lint_runtime::{
    Context, DeviceBuffer, Kernel, LaunchConfig, Mapping, PhysicalAllocation, PinnedBuffer, Result, Stream, VirtualRange,
};

const PACKETIZE_SRC: &str = r#"
extern "C" __global__ void packetize(unsigned char* ring_w, const unsigned char* ring_r,
                                     const unsigned char* nal, int nal_len, int head, int cap,
                                     unsigned int* crc_out) {
    for (int i = threadIdx.x; i < nal_len; i += blockDim.x) ring_w[(head + i) % cap] = nal[i];
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned int crc = 0xffffffffu;
        for (int k = 0; k < nal_len; ++k) {
            crc ^= ring_r[(head + k) % cap];
            for (int b = 0; b < 8; ++b) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
        }
        crc_out[0] = ~crc;
    }
}
"#;

pub struct MirrorRing {
    _physical: PhysicalAllocation,
    write_view: Mapping,
    read_view: Mapping,
    capacity: usize,
    head: usize,
}

impl MirrorRing {
    pub fn new(ctx: &Context, min_bytes: usize) -> Result<Self> {
        let gran = ctx.vmm_granularity()?;
        let capacity = min_bytes.div_ceil(gran) * gran;
        let physical = PhysicalAllocation::new(ctx, capacity)?;
        let write_view = VirtualRange::reserve(ctx, capacity)?.map(&physical, 0)?;
        let read_view = VirtualRange::reserve(ctx, capacity)?.map(&physical, 0)?;
        Ok(Self { _physical: physical, write_view, read_view, capacity, head: 0 })
    }
}

pub struct Packetizer {
    stream: Stream,
    kernel: Kernel,
    ring: MirrorRing,
    nal_dev: DeviceBuffer<u8>,
    crc_dev: DeviceBuffer<u32>,
    crc_host: PinnedBuffer<u32>,
}

impl Packetizer {
    pub fn new(ctx: &Context, ring_bytes: usize, max_nal: usize) -> Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            kernel: ctx.load_cuda(PACKETIZE_SRC)?.function("packetize")?,
            ring: MirrorRing::new(ctx, ring_bytes)?,
            nal_dev: ctx.alloc::<u8>(max_nal)?,
            crc_dev: ctx.alloc::<u32>(1)?,
            crc_host: ctx.alloc_pinned::<u32>(1)?,
        })
    }

    /// `nal_dev` already holds the encoder's output NAL unit (written by the encoder kernel).
    pub fn push(&mut self, nal_len: usize) -> Result<u32> {
        let (len, head, cap) = (nal_len as i32, self.ring.head as i32, self.ring.capacity as i32);
        let cfg = LaunchConfig { grid: (1, 1, 1), block: (1024, 1, 1), shared_mem_bytes: 0 };
        let (ring_w, ring_r) = (&self.ring.write_view, &self.ring.read_view);
        unsafe {
            self.stream.launch(&self.kernel, cfg, &[ring_w, ring_r, &self.nal_dev, &len, &head, &cap, &self.crc_dev])?; // EXPECT: unfenced_vmm_alias
            self.stream.copy_dtoh_async(&mut self.crc_host, &self.crc_dev)?;
        }
        self.stream.synchronize()?;
        self.ring.head = (self.ring.head + nal_len) % self.ring.capacity;
        Ok(self.crc_host[0])
    }
}
