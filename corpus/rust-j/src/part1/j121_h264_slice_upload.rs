//! case: H.264 decoder front end uploads the parsed slice header as a 256-byte array (a constant-size copy, too small to matter) and the entropy-coded payload from a pinned staging slice; it synchronizes before reusing the staging and reads back decode status into an 8-word array
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CABAC_SRC: &str = r#"
extern "C" __global__ void cabac_scan(const unsigned char* hdr, const unsigned char* payload, int len,
                                      short* coeffs, unsigned int* status) {
    int mb = blockIdx.x;
    int first = hdr[0] | (hdr[1] << 8);
    if (threadIdx.x == 0 && mb == 0) { status[0] = first; status[1] = len; }
    for (int i = threadIdx.x; i < 256; i += blockDim.x) {
        int src = (mb * 256 + i) % (len > 0 ? len : 1);
        coeffs[mb * 256 + i] = (short)(payload[src] ^ hdr[2 + (i & 31)]);
    }
    if (threadIdx.x == 0) atomicAdd(&status[2], 1u);
}
"#;

pub const HEADER_BYTES: usize = 256;

pub struct SliceUnit<'a> {
    pub header: [u8; HEADER_BYTES],
    pub payload: &'a [u8],
    pub macroblocks: u32,
}

#[derive(Debug, Clone, Copy)]
pub struct DecodeStatus {
    pub first_mb: u32,
    pub bytes: u32,
    pub decoded_mbs: u32,
}

pub struct SliceDecoder {
    stream: Arc<CudaStream>,
    scan: CudaFunction,
    staging: PinnedHostSlice<u8>,
    d_header: CudaSlice<u8>,
    d_payload: CudaSlice<u8>,
    d_coeffs: CudaSlice<i16>,
    d_status: CudaSlice<u32>,
}

impl SliceDecoder {
    pub fn new(ctx: &Arc<CudaContext>, max_payload: usize, max_mbs: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            scan: ctx.load_module(compile_ptx(CABAC_SRC)?)?.load_function("cabac_scan")?,
            staging: unsafe { ctx.alloc_pinned_with_flags::<u8>(max_payload, 0)? },
            d_header: stream.alloc_zeros(HEADER_BYTES)?,
            d_payload: stream.alloc_zeros(max_payload)?,
            d_coeffs: stream.alloc_zeros(max_mbs * 256)?,
            d_status: stream.alloc_zeros(8)?,
            stream,
        })
    }

    pub fn decode(&mut self, unit: &SliceUnit<'_>) -> Result<DecodeStatus, DriverError> {
        let len = unit.payload.len().min(self.staging.len());
        self.staging.as_mut_slice()?[..len].copy_from_slice(&unit.payload[..len]);
        self.stream.memcpy_htod(&unit.header, &mut self.d_header)?;
        self.stream.memcpy_htod(&self.staging, &mut self.d_payload)?;
        self.stream.memset_zeros(&mut self.d_status)?;
        let len_i = len as i32;
        unsafe {
            self.stream
                .launch_builder(&self.scan)
                .arg(&self.d_header)
                .arg(&self.d_payload)
                .arg(&len_i)
                .arg(&mut self.d_coeffs)
                .arg(&mut self.d_status)
                .launch(LaunchConfig { grid_dim: (unit.macroblocks, 1, 1), block_dim: (64, 1, 1), shared_mem_bytes: 0 })?;
        }
        let mut status = [0u32; 8];
        self.stream.memcpy_dtoh(&self.d_status, &mut status)?;
        // The staging slice is rewritten by the next call: wait for the payload copy.
        self.stream.synchronize()?;
        Ok(DecodeStatus { first_mb: status[0], bytes: status[1], decoded_mbs: status[2] })
    }
}
