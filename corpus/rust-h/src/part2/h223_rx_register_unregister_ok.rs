//! case: packet receive path that page-locks its fixed-size `Vec<u8>` receive buffer once with `cuMemHostRegister_v2`, uploads from it with `cuMemcpyHtoDAsync_v2` (pinned, not pageable), reads the parsed headers after `stream.synchronize()`, and unregisters exactly that pointer on drop after synchronizing
//! expect: none

use std::io::Read;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr};
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const PARSE_SRC: &str = r#"
extern "C" __global__ void parse_headers(const unsigned char* rx, unsigned len, unsigned* hdrs, unsigned max_pkts) {
    unsigned p = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned off = p * 64;
    if (p >= max_pkts || off + 4 > len) return;
    hdrs[p] = ((unsigned)rx[off] << 24) | ((unsigned)rx[off + 1] << 16) | ((unsigned)rx[off + 2] << 8) | rx[off + 3];
}
"#;

pub struct RxPath {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    parse: CudaFunction,
    rx: Vec<u8>,
    dev_rx: CUdeviceptr,
    dev_hdrs: CudaSlice<u32>,
    hdr_host: PinnedHostSlice<u32>,
}

impl RxPath {
    pub fn new(ctx: Arc<CudaContext>, rx_bytes: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let parse = ctx.load_module(compile_ptx(PARSE_SRC)?)?.load_function("parse_headers")?;
        let mut rx = vec![0u8; rx_bytes];
        let mut dev_rx: CUdeviceptr = 0;
        unsafe {
            sys::cuMemHostRegister_v2(rx.as_mut_ptr().cast(), rx.len(), 0).result()?;
            sys::cuMemAlloc_v2(&mut dev_rx, rx_bytes).result()?;
        }
        let max_pkts = rx_bytes / 64;
        Ok(Self {
            dev_hdrs: stream.alloc_zeros::<u32>(max_pkts)?,
            hdr_host: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_pkts, 0)? },
            ctx,
            stream,
            parse,
            rx,
            dev_rx,
        })
    }

    pub fn receive_batch<R: Read>(&mut self, socket: &mut R) -> Result<Vec<u32>, Box<dyn std::error::Error>> {
        // the previous batch was synchronized before it returned: the buffer is free
        let len = socket.read(&mut self.rx)?;
        if len == 0 {
            return Ok(Vec::new());
        }
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.dev_rx, self.rx.as_ptr().cast(), len, self.stream.cu_stream()).result()?;
        }
        let (len32, max_pkts) = (len as u32, self.dev_hdrs.len() as u32);
        unsafe {
            self.stream
                .launch_builder(&self.parse)
                .arg(&self.dev_rx)
                .arg(&len32)
                .arg(&mut self.dev_hdrs)
                .arg(&max_pkts)
                .launch(LaunchConfig::for_num_elems(max_pkts))?
        };
        self.stream.memcpy_dtoh(&self.dev_hdrs, &mut self.hdr_host)?;
        self.stream.synchronize()?;
        let pkts = len / 64;
        Ok(self.hdr_host.as_slice()?[..pkts].to_vec())
    }
}

impl Drop for RxPath {
    fn drop(&mut self) {
        let _ = self.stream.synchronize();
        let _ = self.ctx.bind_to_thread();
        unsafe {
            let _ = sys::cuMemHostUnregister(self.rx.as_mut_ptr().cast());
            let _ = sys::cuMemFree_v2(self.dev_rx);
        }
    }
}
