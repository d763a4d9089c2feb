//! case: video encoder on the runtime layer: raw frames go up from a default pinned buffer, the compressed bitstream comes back into a pinned buffer allocated write-combined, and the muxer hashes the packet from it after synchronizing (the length word comes back through a default pinned buffer)
//! expect: write_combined_host_read=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, PinnedBuffer, PinnedFlags, Result, Stream};

const RLE_SRC: &str = r#"
extern "C" __global__ void rle_encode(const unsigned char* frame, unsigned int n,
                                      unsigned char* out, unsigned int* out_len) {
    if (blockIdx.x != 0 || threadIdx.x != 0) return;
    unsigned int o = 0;
    for (unsigned int i = 0; i < n;) {
        unsigned char v = frame[i];
        unsigned int run = 1;
        while (i + run < n && frame[i + run] == v && run < 255) ++run;
        out[o++] = (unsigned char)run;
        out[o++] = v;
        i += run;
    }
    *out_len = o;
}
"#;

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, &b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3))
}

pub struct Packet {
    pub pts: u64,
    pub len: usize,
    pub digest: u64,
}

pub struct Encoder {
    stream: Stream,
    rle: Kernel,
    frame_up: PinnedBuffer<u8>,
    bitstream: PinnedBuffer<u8>,
    len_down: PinnedBuffer<u32>,
    d_frame: DeviceBuffer<u8>,
    d_out: DeviceBuffer<u8>,
    d_len: DeviceBuffer<u32>,
}

impl Encoder {
    pub fn new(ctx: &Context, frame_bytes: usize) -> Result<Encoder> {
        let wc = PinnedFlags { write_combined: true, ..PinnedFlags::default() };
        Ok(Encoder {
            stream: ctx.new_stream()?,
            rle: ctx.load_cuda(RLE_SRC)?.function("rle_encode")?,
            frame_up: ctx.alloc_pinned(frame_bytes)?,
            bitstream: ctx.alloc_pinned_with_flags(2 * frame_bytes, wc)?,
            len_down: ctx.alloc_pinned(1)?,
            d_frame: ctx.alloc(frame_bytes)?,
            d_out: ctx.alloc(2 * frame_bytes)?,
            d_len: ctx.alloc(1)?,
        })
    }

    pub fn encode(&mut self, pts: u64, frame: &[u8]) -> Result<Packet> {
        self.frame_up.copy_from_slice(frame);
        let n = frame.len() as u32;
        unsafe {
            self.stream.copy_htod_async(&mut self.d_frame, &self.frame_up)?;
            self.stream.launch(&self.rle, LaunchConfig::for_num_elems(1), &[&self.d_frame, &n, &self.d_out, &self.d_len])?;
            self.stream.copy_dtoh_async(&mut self.len_down, &self.d_len)?;
            self.stream.copy_dtoh_async(&mut self.bitstream, &self.d_out)?;
        }
        self.stream.synchronize()?;
        let len = self.len_down[0] as usize;
        let digest = fnv1a(&self.bitstream[..len]); // EXPECT: write_combined_host_read
        Ok(Packet { pts, len, digest })
    }
}

pub fn encode_all(ctx: &Context, frames: &[Vec<u8>]) -> Result<Vec<Packet>> {
    let Some(first) = frames.first() else { return Ok(Vec::new()) };
    let mut enc = Encoder::new(ctx, first.len())?;
    frames.iter().enumerate().map(|(i, f)| enc.encode(i as u64 * 3000, f)).collect()
}
