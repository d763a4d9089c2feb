//! case: unified memory allocated attached to the host (alloc_unified(.., false)) is filled by the host while a kernel on other memory runs, then attached to one stream before the GPU uses it
//! expect: none
use std::sync::Arc;

use cudarc::driver::{sys, CudaContext, CudaFunction, CudaSlice, CudaStream, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const SRC: &str = r#"
extern "C" __global__ void blur(const float* in, float* out, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > 0 && i + 1 < n) out[i] = (in[i - 1] + in[i] + in[i + 1]) / 3.0f;
}
extern "C" __global__ void apply_lut(const float* lut, float* img, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) img[i] = lut[(unsigned)(img[i] * 255.0f) & 255u];
}
"#;

pub struct LutStage {
    stream: Arc<CudaStream>,
    lut: UnifiedSlice<f32>,
    blur: CudaFunction,
    apply: CudaFunction,
}

impl LutStage {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let module = ctx.load_module(compile_ptx(SRC)?)?;
        Ok(Self {
            stream: ctx.new_stream()?,
            lut: unsafe { ctx.alloc_unified::<f32>(256, false)? },
            blur: module.load_function("blur")?,
            apply: module.load_function("apply_lut")?,
        })
    }

    pub fn run(&mut self, img: &mut CudaSlice<f32>, tmp: &mut CudaSlice<f32>, gamma: f32) -> Result<(), Box<dyn std::error::Error>> {
        let n = img.len() as u32;
        let cfg = LaunchConfig::for_num_elems(n);
        unsafe { self.stream.launch_builder(&self.blur).arg(&*img).arg(&mut *tmp).arg(&n).launch(cfg)? };
        // host-attached: the GPU does not own it while kernels run
        for (i, v) in self.lut.as_mut_slice()?.iter_mut().enumerate() {
            *v = (i as f32 / 255.0).powf(gamma);
        }
        self.lut.attach(&self.stream, sys::CUmemAttach_flags::CU_MEM_ATTACH_SINGLE)?;
        unsafe { self.stream.launch_builder(&self.apply).arg(&self.lut).arg(&mut *tmp).arg(&n).launch(cfg)? };
        self.stream.synchronize()?;
        self.lut.attach(&self.stream, sys::CUmemAttach_flags::CU_MEM_ATTACH_HOST)?;
        self.stream.synchronize()?;
        Ok(())
    }
}
