//! case: GPU mesh skinning system uploads a fixed 64-bone palette (4 KiB, a constant-size array) and, in its debug overlay, builds a host slice straight from the palette's raw device pointer to print the root bone
//! expect: host_deref_device_ptr=1

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

pub const MAX_BONES: usize = 64;

const SKIN_SRC: &str = r#"
extern "C" __global__ void skin(const float* bind_pos, const int* bone_idx, const float* weights,
                                const float* palette, float* out_pos, int n) {
    int v = blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    float x = bind_pos[3*v], y = bind_pos[3*v+1], z = bind_pos[3*v+2];
    float ox = 0, oy = 0, oz = 0;
    for (int k = 0; k < 4; ++k) {
        const float* m = palette + 16 * bone_idx[4*v+k];
        float w = weights[4*v+k];
        ox += w * (m[0]*x + m[4]*y + m[8]*z + m[12]);
        oy += w * (m[1]*x + m[5]*y + m[9]*z + m[13]);
        oz += w * (m[2]*x + m[6]*y + m[10]*z + m[14]);
    }
    out_pos[3*v] = ox; out_pos[3*v+1] = oy; out_pos[3*v+2] = oz;
}
"#;

pub trait DebugOverlay {
    fn line(&mut self, text: String);
}

pub struct SkinnedMesh {
    pub bind_pos: CudaSlice<f32>,
    pub bone_idx: CudaSlice<i32>,
    pub weights: CudaSlice<f32>,
    pub skinned: CudaSlice<f32>,
    pub vertices: usize,
}

pub struct SkinningSystem {
    stream: Arc<CudaStream>,
    skin: CudaFunction,
    palette: CudaSlice<f32>,
    palette_host: [f32; 16 * MAX_BONES],
    pub debug: bool,
}

impl SkinningSystem {
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Self, Box<dyn std::error::Error>> {
        let stream = ctx.new_stream()?;
        let skin = ctx.load_module(compile_ptx(SKIN_SRC)?)?.load_function("skin")?;
        let palette = stream.alloc_zeros::<f32>(16 * MAX_BONES)?;
        Ok(Self { stream, skin, palette, palette_host: [0.0; 16 * MAX_BONES], debug: false })
    }

    pub fn set_pose(&mut self, bones: &[[f32; 16]]) {
        for (dst, m) in self.palette_host.chunks_exact_mut(16).zip(bones.iter().take(MAX_BONES)) {
            dst.copy_from_slice(m);
        }
    }

    pub fn skin_mesh(&mut self, mesh: &mut SkinnedMesh, overlay: &mut dyn DebugOverlay) -> Result<(), DriverError> {
        // 4 KiB of matrices: a constant-size array.
        self.stream.memcpy_htod(&self.palette_host, &mut self.palette)?;
        let n = mesh.vertices as i32;
        unsafe {
            self.stream
                .launch_builder(&self.skin)
                .arg(&mesh.bind_pos)
                .arg(&mesh.bone_idx)
                .arg(&mesh.weights)
                .arg(&self.palette)
                .arg(&mut mesh.skinned)
                .arg(&n)
                .launch(LaunchConfig::for_num_elems(n as u32))?;
        }
        if self.debug {
            self.stream.synchronize()?;
            let (ptr, _rec) = self.palette.device_ptr(&self.stream);
            let gpu_palette = unsafe { std::slice::from_raw_parts(ptr as *const f32, 16 * MAX_BONES) }; // EXPECT: host_deref_device_ptr
            let root = &gpu_palette[..16];
            overlay.line(format!("root bone T = ({:.3}, {:.3}, {:.3})", root[12], root[13], root[14]));
        }
        Ok(())
    }
}
