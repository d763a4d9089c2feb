//! case: job dispatcher keeps its dispatch table in managed memory allocated host-attached (`alloc_unified(len, false)`, `CU_MEM_ATTACH_HOST`), which no kernel uses; the host updates it while the decode kernel runs on another stream, which CUDA allows for host-attached memory even without concurrent managed access
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const DECODE_SRC: &str = r#"
extern "C" __global__ void varint_decode(const unsigned char* in, unsigned long long* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char* p = in + (size_t)i * 10;
    unsigned long long v = 0;
    for (int b = 0; b < 10; ++b) { v |= (unsigned long long)(p[b] & 0x7f) << (7 * b); if (!(p[b] & 0x80)) break; }
    out[i] = v;
}
"#;

#[repr(u64)]
#[derive(Clone, Copy)]
pub enum SlotState {
    Idle = 0,
    Decoding = 1,
    Done = 2,
}

pub struct Dispatcher {
    stream: Arc<CudaStream>,
    decode: CudaFunction,
    table: UnifiedSlice<u64>,
    decoded: CudaSlice<u64>,
    decoded_host: PinnedHostSlice<u64>,
}

impl Dispatcher {
    pub fn new(ctx: &Arc<CudaContext>, slots: usize, max_values: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let decode = ctx.load_module(compile_ptx(DECODE_SRC)?)?.load_function("varint_decode")?;
        let mut table = unsafe { ctx.alloc_unified::<u64>(slots, false)? };
        table.as_mut_slice()?.fill(SlotState::Idle as u64);
        Ok(Self {
            decoded: stream.alloc_zeros::<u64>(max_values)?,
            decoded_host: unsafe { ctx.alloc_pinned_with_flags::<u64>(max_values, 0)? },
            stream,
            decode,
            table,
        })
    }

    pub fn run(&mut self, slot: usize, encoded: &CudaSlice<u8>, n: u32) -> Result<u64, DriverError> {
        unsafe {
            self.stream
                .launch_builder(&self.decode)
                .arg(encoded)
                .arg(&mut self.decoded)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n))?
        };
        self.table.as_mut_slice()?[slot] = SlotState::Decoding as u64;
        self.stream.memcpy_dtoh(&self.decoded, &mut self.decoded_host)?;
        self.stream.synchronize()?;
        self.table.as_mut_slice()?[slot] = SlotState::Done as u64;
        Ok(self.decoded_host.as_slice()?[..n as usize].iter().copied().fold(0u64, u64::wrapping_add))
    }

    pub fn busy_slots(&self) -> Result<usize, DriverError> {
        Ok(self.table.as_slice()?.iter().filter(|&&s| s == SlotState::Decoding as u64).count())
    }
}
