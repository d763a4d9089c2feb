//! case: progressive path tracer: scene upload with a blocking cuMemcpyHtoD and accumulation kernels on a stream created with CU_STREAM_DEFAULT, readback with a blocking cuMemcpyDtoH into a Vec; the legacy default stream synchronizes with this blocking stream both ways, so the readback sees every pass
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const TRACE_SRC: &str = r#"
struct Sphere { float cx, cy, cz, r; float albedo_r, albedo_g, albedo_b, emission; };

__device__ unsigned lcg(unsigned& s) { s = s * 1664525u + 1013904223u; return s; }
__device__ float rnd(unsigned& s) { return (lcg(s) >> 8) * (1.0f / 16777216.0f); }

extern "C" __global__ void trace_pass(const Sphere* spheres, unsigned nspheres, float4* accum,
                                      unsigned width, unsigned height, unsigned pass) {
    unsigned px = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned py = blockIdx.y * blockDim.y + threadIdx.y;
    if (px >= width || py >= height) return;
    unsigned seed = (py * width + px) * 9781u + pass * 6271u;
    float ox = 0.f, oy = 0.f, oz = -3.f;
    float dx = ((px + rnd(seed)) / width - 0.5f), dy = ((py + rnd(seed)) / height - 0.5f), dz = 1.f;
    float inv = rsqrtf(dx*dx + dy*dy + dz*dz); dx *= inv; dy *= inv; dz *= inv;
    float tr = 1.f, tg = 1.f, tb = 1.f, lr = 0.f, lg = 0.f, lb = 0.f;
    for (int bounce = 0; bounce < 4; ++bounce) {
        float best = 1e30f; int hit = -1;
        for (unsigned s = 0; s < nspheres; ++s) {
            float px_ = ox - spheres[s].cx, py_ = oy - spheres[s].cy, pz_ = oz - spheres[s].cz;
            float b = px_*dx + py_*dy + pz_*dz;
            float c = px_*px_ + py_*py_ + pz_*pz_ - spheres[s].r * spheres[s].r;
            float disc = b*b - c;
            if (disc < 0.f) continue;
            float t = -b - sqrtf(disc);
            if (t > 1e-3f && t < best) { best = t; hit = (int)s; }
        }
        if (hit < 0) break;
        const Sphere& sp = spheres[hit];
        lr += tr * sp.emission; lg += tg * sp.emission; lb += tb * sp.emission;
        tr *= sp.albedo_r; tg *= sp.albedo_g; tb *= sp.albedo_b;
        ox += best*dx; oy += best*dy; oz += best*dz;
        float nx = (ox - sp.cx) / sp.r, ny = (oy - sp.cy) / sp.r, nz = (oz - sp.cz) / sp.r;
        dx = nx + rnd(seed) - 0.5f; dy = ny + rnd(seed) - 0.5f; dz = nz + rnd(seed) - 0.5f;
        inv = rsqrtf(dx*dx + dy*dy + dz*dz); dx *= inv; dy *= inv; dz *= inv;
    }
    float4 a = accum[py * width + px];
    accum[py * width + px] = make_float4(a.x + lr, a.y + lg, a.z + lb, a.w + 1.f);
}
"#;

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Sphere {
    pub center: [f32; 3],
    pub radius: f32,
    pub albedo: [f32; 3],
    pub emission: f32,
}

pub struct Renderer {
    stream: sys::CUstream,
    module: sys::CUmodule,
    trace: sys::CUfunction,
    d_scene: CUdeviceptr,
    nspheres: u32,
    d_accum: CUdeviceptr,
    width: u32,
    height: u32,
    passes: u32,
}

impl Renderer {
    pub fn new(scene: &[Sphere], width: u32, height: u32) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
        }
        let ptx = cudarc::nvrtc::compile_ptx(TRACE_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut trace, mut stream) = (null_mut(), null_mut(), null_mut());
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut trace, module, c"trace_pass".as_ptr()).result()?;
            // A blocking stream: it orders with the legacy default stream the blocking copies use.
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_DEFAULT as u32).result()?;
        }
        let scene_bytes = std::mem::size_of_val(scene);
        let accum_bytes = (width * height) as usize * 16;
        let (mut d_scene, mut d_accum) = (0, 0);
        unsafe {
            sys::cuMemAlloc_v2(&mut d_scene, scene_bytes).result()?;
            sys::cuMemAlloc_v2(&mut d_accum, accum_bytes).result()?;
            sys::cuMemcpyHtoD_v2(d_scene, scene.as_ptr().cast(), scene_bytes).result()?;
            sys::cuMemsetD32Async(d_accum, 0, accum_bytes / 4, stream).result()?;
        }
        Ok(Self { stream, module, trace, d_scene, nspheres: scene.len() as u32, d_accum, width, height, passes: 0 })
    }

    pub fn add_passes(&mut self, count: u32) -> Result<()> {
        for _ in 0..count {
            let (mut s, mut ns, mut acc) = (self.d_scene, self.nspheres, self.d_accum);
            let (mut w, mut h, mut p) = (self.width, self.height, self.passes);
            let mut params: [*mut c_void; 6] = [
                (&mut s as *mut CUdeviceptr).cast(),
                (&mut ns as *mut u32).cast(),
                (&mut acc as *mut CUdeviceptr).cast(),
                (&mut w as *mut u32).cast(),
                (&mut h as *mut u32).cast(),
                (&mut p as *mut u32).cast(),
            ];
            unsafe {
                sys::cuLaunchKernel(
                    self.trace, w.div_ceil(16), h.div_ceil(16), 1, 16, 16, 1, 0, self.stream,
                    params.as_mut_ptr(), null_mut(),
                )
                .result()?;
            }
            self.passes += 1;
        }
        Ok(())
    }

    /// Tone-mapped 8-bit RGB of the current estimate.
    pub fn snapshot(&self) -> Result<Vec<u8>> {
        let n = (self.width * self.height) as usize;
        let mut accum = vec![[0f32; 4]; n];
        unsafe {
            sys::cuMemcpyDtoH_v2(accum.as_mut_ptr().cast(), self.d_accum, n * 16).result()?;
        }
        let to8 = |v: f32| ((v / (1.0 + v)).powf(1.0 / 2.2) * 255.0) as u8;
        Ok(accum
            .iter()
            .flat_map(|a| {
                let w = a[3].max(1.0);
                [to8(a[0] / w), to8(a[1] / w), to8(a[2] / w)]
            })
            .collect())
    }
}

impl Drop for Renderer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemFree_v2(self.d_scene);
            let _ = sys::cuMemFree_v2(self.d_accum);
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}

pub fn render_preview() -> Result<Vec<u8>> {
    let scene = vec![
        Sphere { center: [0.0, -1000.5, 0.0], radius: 1000.0, albedo: [0.7, 0.7, 0.7], emission: 0.0 },
        Sphere { center: [0.0, 0.0, 1.0], radius: 0.5, albedo: [0.9, 0.3, 0.2], emission: 0.0 },
        Sphere { center: [0.0, 3.0, 1.0], radius: 1.0, albedo: [0.0, 0.0, 0.0], emission: 8.0 },
    ];
    let mut r = Renderer::new(&scene, 1280, 720)?;
    r.add_passes(64)?;
    r.snapshot()
}
