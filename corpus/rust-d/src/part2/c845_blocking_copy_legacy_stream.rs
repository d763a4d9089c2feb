//! case: a loss computation (cudarc `driver::result`) runs its kernel on a non-blocking stream and then reads the per-batch losses back with the blocking `memcpy_dtoh_sync` (`cuMemcpyDtoH`), which runs on the legacy default stream: that stream does not wait for non-blocking streams, so the copy may read the losses before the kernel has written them
//! expect: missing_sync=1

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result::{self, stream::StreamKind, DriverError};
use cudarc::driver::sys::{CUdeviceptr, CUfunction, CUstream};
use cudarc::driver::CudaContext;
use cudarc::nvrtc::compile_ptx;

const XENT_SRC: &str = r#"
extern "C" __global__ void cross_entropy(const float* logits, const unsigned int* labels, float* loss,
                                         unsigned int batch, unsigned int classes) {
    unsigned int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* row = logits + (size_t)b * classes;
    float m = row[0];
    for (unsigned int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
    float s = 0.0f;
    for (unsigned int c = 0; c < classes; ++c) s += __expf(row[c] - m);
    loss[b] = logf(s) + m - row[labels[b]];
}
"#;

pub struct LossHead {
    stream: CUstream,
    xent: CUfunction,
    loss_dev: CUdeviceptr,
    max_batch: usize,
    _module: Arc<cudarc::driver::CudaModule>,
}

impl LossHead {
    pub fn new(ctx: &Arc<CudaContext>, max_batch: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(XENT_SRC)?)?;
        Ok(Self {
            stream: result::stream::create(StreamKind::NonBlocking)?,
            xent: module.load_function("cross_entropy")?.cu_function(),
            loss_dev: unsafe { result::malloc_sync(max_batch * 4)? },
            max_batch,
            _module: module,
        })
    }

    pub fn mean_loss(&self, logits: CUdeviceptr, labels: CUdeviceptr, batch: u32, classes: u32) -> Result<f32, DriverError> {
        assert!(batch as usize <= self.max_batch);
        let (mut l, mut y, mut out, mut b, mut c) = (logits, labels, self.loss_dev, batch, classes);
        let mut params = [
            &mut l as *mut _ as *mut c_void,
            &mut y as *mut _ as *mut c_void,
            &mut out as *mut _ as *mut c_void,
            &mut b as *mut _ as *mut c_void,
            &mut c as *mut _ as *mut c_void,
        ];
        let mut losses = vec![0.0f32; batch as usize];
        unsafe {
            result::launch_kernel(self.xent, (batch.div_ceil(128), 1, 1), (128, 1, 1), 0, self.stream, &mut params)?;
            // blocking copy: "no need to synchronize"
            result::memcpy_dtoh_sync(&mut losses, self.loss_dev)?; // EXPECT: missing_sync
        }
        Ok(losses.iter().sum::<f32>() / batch.max(1) as f32)
    }
}
