//! case: a GPU packet-processing stage (runtime layer) keeps received packets in a `DeviceBuffer<u8>`; the dispatcher reads the first packet's header with `ptr::read` through the buffer's device address to pick the next stage
//! expect: host_deref_device_ptr=1
use cuda_lint_runtime::{Context, DeviceBuffer, Kernel, LaunchConfig, Stream};

#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct PacketHeader {
    pub magic: u32,
    pub flow_id: u32,
    pub payload_len: u32,
    pub kind: u32,
}

const PARSE_SRC: &str = r#"
struct PacketHeader { unsigned int magic, flow_id, payload_len, kind; };
extern "C" __global__ void classify(unsigned char* packets, int count, int stride) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    PacketHeader* h = (PacketHeader*)(packets + (size_t)i * stride);
    h->kind = (h->payload_len > 1024) ? 2u : 1u;
}
"#;

pub struct Dispatcher {
    stream: Stream,
    classify: Kernel,
    packets: DeviceBuffer<u8>,
    stride: usize,
}

impl Dispatcher {
    pub fn new(ctx: &Context, count: usize, stride: usize) -> cuda_lint_runtime::Result<Self> {
        Ok(Self {
            stream: ctx.new_stream()?,
            classify: ctx.load_cuda(PARSE_SRC)?.function("classify")?,
            packets: ctx.alloc_zeroed::<u8>(count * stride)?,
            stride,
        })
    }

    pub fn route(&mut self, count: usize) -> cuda_lint_runtime::Result<&'static str> {
        let (count_i, stride_i) = (count as i32, self.stride as i32);
        unsafe {
            self.stream.launch(&self.classify, LaunchConfig::for_num_elems(count as u32), &[&self.packets, &count_i, &stride_i])?;
        }
        self.stream.synchronize()?;
        let first = self.packets.device_ptr().as_raw() as *const PacketHeader;
        let header = unsafe { std::ptr::read(first) }; // EXPECT: host_deref_device_ptr
        Ok(match header.kind {
            2 => "bulk",
            1 => "interactive",
            _ => "drop",
        })
    }
}
