//! case: a segmentation post-processor thresholds logits into a byte mask with cudarc, synchronizes, then counts foreground pixels through a host slice made from the mask's device pointer with `slice::from_raw_parts`
//! expect: host_deref_device_ptr=1

use std::sync::{Arc, LazyLock};

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::{compile_ptx, Ptx};

const MASK_CU: &str = r#"
extern "C" __global__ void threshold(const float* logits, int n, float t, unsigned char* mask) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) mask[i] = logits[i] > t ? 1 : 0;
}
"#;

static MASK_PTX: LazyLock<Ptx> = LazyLock::new(|| compile_ptx(MASK_CU).expect("threshold kernel compiles"));

pub struct MaskStats {
    pub foreground: usize,
    pub fraction: f32,
}

pub struct MaskPostProcess {
    stream: Arc<CudaStream>,
    threshold: CudaFunction,
    mask: CudaSlice<u8>,
}

impl MaskPostProcess {
    pub fn new(ctx: &Arc<CudaContext>, pixels: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let threshold = ctx.load_module(MASK_PTX.clone())?.load_function("threshold")?;
        let mask = stream.alloc_zeros::<u8>(pixels)?;
        Ok(Self { stream, threshold, mask })
    }

    pub fn mask(&self) -> &CudaSlice<u8> {
        &self.mask
    }

    pub fn run(&mut self, logits: &CudaSlice<f32>, t: f32) -> Result<MaskStats, DriverError> {
        let n = logits.len().min(self.mask.len()) as i32;
        unsafe {
            self.stream
                .launch_builder(&self.threshold)
                .arg(logits)
                .arg(&n)
                .arg(&t)
                .arg(&mut self.mask)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        self.stream.synchronize()?;
        let (ptr, _record) = self.mask.device_ptr(&self.stream);
        let pixels = unsafe { std::slice::from_raw_parts(ptr as *const u8, n as usize) }; // EXPECT: host_deref_device_ptr
        let foreground = pixels.iter().filter(|&&m| m != 0).count();
        Ok(MaskStats { foreground, fraction: foreground as f32 / n.max(1) as f32 })
    }
}
