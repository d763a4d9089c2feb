//! case: `async fn` convolution reverb that processes 64 Ki-sample audio blocks handed in as `&[f32]` from the decoder: each block is uploaded with `memcpy_htod` straight from that slice (pageable memory of run-time size), while the wet signal comes back through plain pinned memory and is read after synchronize
//! expect: pageable_async_copy=1

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context as TaskContext, Poll};

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CONV_SRC: &str = r#"
extern "C" __global__ void overlap_save(const float* block, const float* history, const float* ir,
                                        float* wet, int n, int ir_len, float mix) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = 0.f;
    for (int k = 0; k < ir_len; ++k) {
        int j = i - k;
        acc += ir[k] * (j >= 0 ? block[j] : history[ir_len + j]);
    }
    wet[i] = (1.f - mix) * block[i] + mix * acc;
}
"#;

/// Offline rendering: the decoder hands out blocks of 64 Ki samples (256 KiB).
pub const BLOCK_LEN: usize = 1 << 16;

/// Yields once to the executor between blocks, so the audio thread stays responsive.
struct YieldNow(bool);

impl Future for YieldNow {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut TaskContext<'_>) -> Poll<()> {
        if self.0 {
            Poll::Ready(())
        } else {
            self.0 = true;
            cx.waker().wake_by_ref();
            Poll::Pending
        }
    }
}

pub struct Reverb {
    stream: Arc<CudaStream>,
    kernel: CudaFunction,
    d_block: CudaSlice<f32>,
    d_history: CudaSlice<f32>,
    d_ir: CudaSlice<f32>,
    d_wet: CudaSlice<f32>,
    h_wet: PinnedHostSlice<f32>,
    block_len: usize,
    ir_len: usize,
    mix: f32,
}

impl Reverb {
    pub fn new(ctx: &Arc<CudaContext>, impulse: &PinnedHostSlice<f32>, mix: f32) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let block_len = BLOCK_LEN;
        let ir_len = impulse.len();
        Ok(Self {
            kernel: ctx.load_module(compile_ptx(CONV_SRC)?)?.load_function("overlap_save")?,
            d_block: stream.alloc_zeros::<f32>(block_len)?,
            d_history: stream.alloc_zeros::<f32>(ir_len)?,
            d_ir: stream.clone_htod(impulse)?,
            d_wet: stream.alloc_zeros::<f32>(block_len)?,
            h_wet: unsafe { ctx.alloc_pinned_with_flags::<f32>(block_len, 0)? },
            stream,
            block_len,
            ir_len,
            mix,
        })
    }

    pub async fn process_block(&mut self, block: &[f32]) -> Result<Vec<f32>, DriverError> {
        assert_eq!(block.len(), BLOCK_LEN, "decoder blocks are BLOCK_LEN samples");
        self.stream.memcpy_htod(block, &mut self.d_block)?; // EXPECT: pageable_async_copy
        let (n, ir_len) = (self.block_len as i32, self.ir_len as i32);
        let mut launch = self.stream.launch_builder(&self.kernel);
        launch.arg(&self.d_block).arg(&self.d_history).arg(&self.d_ir).arg(&mut self.d_wet).arg(&n).arg(&ir_len).arg(&self.mix);
        unsafe { launch.launch(LaunchConfig::for_num_elems(self.block_len as u32)) }?;
        // Keep the tail of this block as history for the next one (device to device).
        let keep = self.ir_len.min(self.block_len);
        let tail = self.d_block.slice(self.block_len - keep..);
        let mut hist = self.d_history.slice_mut(self.ir_len - keep..);
        self.stream.memcpy_dtod(&tail, &mut hist)?;
        self.stream.memcpy_dtoh(&self.d_wet, &mut self.h_wet)?;

        YieldNow(false).await;

        self.stream.synchronize()?;
        Ok(self.h_wet.as_slice()?.to_vec())
    }
}
