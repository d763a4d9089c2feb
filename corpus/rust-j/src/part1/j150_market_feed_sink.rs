//! case: market-data feed handler implements a `TickSink` trait over a pinned staging slice: ticks are packed into the pinned slice (after synchronizing the previous batch's upload), uploaded with `memcpy_htod` from the pinned slice, plus a 16-byte batch header from a constant-size array, and VWAPs are read back into a pinned, non-write-combined slice after `synchronize`
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const VWAP_SRC: &str = r#"
extern "C" __global__ void vwap(const unsigned int* header, const float* px_qty, float* vwap_out, const unsigned int* sym) {
    int s = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int n = header[0], symbols = header[1];
    if (s >= symbols) return;
    float pv = 0.0f, v = 0.0f;
    for (unsigned int k = 0; k < n; ++k) {
        if (sym[k] == s) { pv += px_qty[2 * k] * px_qty[2 * k + 1]; v += px_qty[2 * k + 1]; }
    }
    vwap_out[s] = v > 0.0f ? pv / v : 0.0f;
}
"#;

#[derive(Clone, Copy, Debug)]
pub struct Tick {
    pub symbol: u32,
    pub price: f32,
    pub qty: f32,
}

pub trait TickSink {
    type Error;
    fn push(&mut self, batch: &[Tick]) -> Result<(), Self::Error>;
    fn vwaps(&mut self) -> Result<&[f32], Self::Error>;
}

pub struct GpuVwapSink {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    px_qty: PinnedHostSlice<f32>,
    syms: PinnedHostSlice<u32>,
    out_host: PinnedHostSlice<f32>,
    d_header: CudaSlice<u32>,
    d_px_qty: CudaSlice<f32>,
    d_syms: CudaSlice<u32>,
    d_out: CudaSlice<f32>,
    symbols: usize,
    pending: bool,
}

impl GpuVwapSink {
    pub fn new(ctx: &Arc<CudaContext>, max_ticks: usize, symbols: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(VWAP_SRC)?)?.load_function("vwap")?,
            px_qty: unsafe { ctx.alloc_pinned_with_flags::<f32>(2 * max_ticks, 0)? },
            syms: unsafe { ctx.alloc_pinned_with_flags::<u32>(max_ticks, 0)? },
            out_host: unsafe { ctx.alloc_pinned_with_flags::<f32>(symbols, 0)? },
            d_header: stream.alloc_zeros(4)?,
            d_px_qty: stream.alloc_zeros(2 * max_ticks)?,
            d_syms: stream.alloc_zeros(max_ticks)?,
            d_out: stream.alloc_zeros(symbols)?,
            stream,
            symbols,
            pending: false,
        })
    }

    fn wait_pending(&mut self) -> Result<(), DriverError> {
        if self.pending {
            self.stream.synchronize()?;
            self.pending = false;
        }
        Ok(())
    }
}

impl TickSink for GpuVwapSink {
    type Error = DriverError;

    fn push(&mut self, batch: &[Tick]) -> Result<(), DriverError> {
        self.wait_pending()?;
        let n = batch.len().min(self.syms.len());
        {
            let pq = self.px_qty.as_mut_slice()?;
            for (k, t) in batch.iter().take(n).enumerate() {
                pq[2 * k] = t.price;
                pq[2 * k + 1] = t.qty;
            }
        }
        for (dst, t) in self.syms.as_mut_slice()?.iter_mut().zip(batch.iter().take(n)) {
            *dst = t.symbol;
        }
        let header: [u32; 4] = [n as u32, self.symbols as u32, 0, 0];
        self.stream.memcpy_htod(&header, &mut self.d_header)?;
        self.stream.memcpy_htod(&self.px_qty, &mut self.d_px_qty)?;
        self.stream.memcpy_htod(&self.syms, &mut self.d_syms)?;
        unsafe {
            self.stream
                .launch_builder(&self.kernel)
                .arg(&self.d_header)
                .arg(&self.d_px_qty)
                .arg(&mut self.d_out)
                .arg(&self.d_syms)
                .launch(LaunchConfig::for_num_elems(self.symbols as u32))?;
        }
        self.stream.memcpy_dtoh(&self.d_out, &mut self.out_host)?;
        self.pending = true;
        Ok(())
    }

    fn vwaps(&mut self) -> Result<&[f32], DriverError> {
        self.wait_pending()?;
        self.out_host.as_slice()
    }
}
