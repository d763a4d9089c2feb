//! case: renderer stages per-frame uniforms in cudarc's write-combined `alloc_pinned` buffer, which the host only writes (copy_from_slice into `as_mut_slice`), synchronizes at the end of each frame before rewriting it, and reads back only a 16-byte counter array into an ordinary array
//! expect: none

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PinnedHostSlice, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const CULL_SRC: &str = r#"
struct Uniforms { float view_proj[16]; float frustum[24]; float lod_bias; float time; float pad[2]; };
extern "C" __global__ void cull(const float* uniforms, const float* spheres, unsigned int* visible,
                                unsigned int* counters, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float* pl = uniforms + 16;
    float x = spheres[4*i], y = spheres[4*i+1], z = spheres[4*i+2], r = spheres[4*i+3];
    for (int p = 0; p < 6; ++p) {
        if (pl[4*p]*x + pl[4*p+1]*y + pl[4*p+2]*z + pl[4*p+3] < -r) { atomicAdd(&counters[1], 1u); return; }
    }
    unsigned int slot = atomicAdd(&counters[0], 1u);
    visible[slot] = i;
}
"#;

pub const UNIFORM_FLOATS: usize = 16 + 24 + 4;

#[derive(Clone, Copy)]
pub struct FrameUniforms {
    pub view_proj: [f32; 16],
    pub frustum: [[f32; 4]; 6],
    pub lod_bias: f32,
    pub time: f32,
}

impl FrameUniforms {
    fn write_to(&self, dst: &mut [f32]) {
        dst[..16].copy_from_slice(&self.view_proj);
        for (p, plane) in self.frustum.iter().enumerate() {
            dst[16 + 4 * p..20 + 4 * p].copy_from_slice(plane);
        }
        dst[40] = self.lod_bias;
        dst[41] = self.time;
        dst[42] = 0.0;
        dst[43] = 0.0;
    }
}

pub struct CullPass {
    stream: Arc<CudaStream>,
    cull: CudaFunction,
    upload: PinnedHostSlice<f32>,
    uniforms: CudaSlice<f32>,
    spheres: CudaSlice<f32>,
    visible: CudaSlice<u32>,
    counters: CudaSlice<u32>,
    objects: usize,
}

#[derive(Debug, Clone, Copy)]
pub struct CullStats {
    pub visible: u32,
    pub culled: u32,
}

impl CullPass {
    pub fn new(ctx: &Arc<CudaContext>, spheres: CudaSlice<f32>, objects: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.default_stream();
        let cull = ctx.load_module(compile_ptx(CULL_SRC)?)?.load_function("cull")?;
        // Write-combined on purpose: the host only ever streams uniforms into it.
        let upload = unsafe { ctx.alloc_pinned::<f32>(UNIFORM_FLOATS)? };
        Ok(Self {
            uniforms: stream.alloc_zeros(UNIFORM_FLOATS)?,
            visible: stream.alloc_zeros(objects)?,
            counters: stream.alloc_zeros(4)?,
            stream,
            cull,
            upload,
            spheres,
            objects,
        })
    }

    pub fn frame(&mut self, u: &FrameUniforms) -> Result<CullStats, DriverError> {
        u.write_to(self.upload.as_mut_slice()?);
        self.stream.memcpy_htod(&self.upload, &mut self.uniforms)?;
        self.stream.memset_zeros(&mut self.counters)?;
        let n = self.objects as i32;
        unsafe {
            self.stream
                .launch_builder(&self.cull)
                .arg(&self.uniforms)
                .arg(&self.spheres)
                .arg(&mut self.visible)
                .arg(&mut self.counters)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(self.objects as u32))?;
        }
        let mut counters = [0u32; 4];
        self.stream.memcpy_dtoh(&self.counters, &mut counters)?;
        // End of frame: the upload buffer is free to be rewritten next frame.
        self.stream.synchronize()?;
        Ok(CullStats { visible: counters[0], culled: counters[1] })
    }
}
