//! case: SDF ray-marcher frame loop: the 96-byte camera uniform block is copied with cuMemcpyHtoDAsync straight from a stack struct each frame (a copy of known size far below 64 KiB; a pageable host-to-device copy has its source staged when the call returns, so reusing the struct is fine), while the large per-frame instance data comes from cuMemAllocHost memory
//! expect: none

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const MARCH_SRC: &str = r#"
struct Camera { float eye[4]; float fwd[4]; float right[4]; float up[4]; float fov, time, aspect, pad; float pad2[4]; };

__device__ float scene(float3 p, const float4* blobs, unsigned nblobs, float k) {
    float d = 1e9f;
    for (unsigned i = 0; i < nblobs; ++i) {
        float3 c = make_float3(blobs[i].x, blobs[i].y, blobs[i].z);
        float dx = p.x - c.x, dy = p.y - c.y, dz = p.z - c.z;
        float di = sqrtf(dx*dx + dy*dy + dz*dz) - blobs[i].w;
        float h = fmaxf(k - fabsf(d - di), 0.f) / k;
        d = fminf(d, di) - h * h * k * 0.25f;
    }
    return d;
}

extern "C" __global__ void march(const Camera* cam, const float4* blobs, unsigned nblobs,
                                 uchar4* image, unsigned w, unsigned h) {
    unsigned x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= w || y >= h) return;
    float u = (2.f * x / w - 1.f) * cam->aspect * cam->fov, v = (1.f - 2.f * y / h) * cam->fov;
    float3 dir = make_float3(cam->fwd[0] + u * cam->right[0] + v * cam->up[0],
                             cam->fwd[1] + u * cam->right[1] + v * cam->up[1],
                             cam->fwd[2] + u * cam->right[2] + v * cam->up[2]);
    float inv = rsqrtf(dir.x*dir.x + dir.y*dir.y + dir.z*dir.z);
    dir.x *= inv; dir.y *= inv; dir.z *= inv;
    float t = 0.f; int i = 0;
    for (; i < 96; ++i) {
        float3 p = make_float3(cam->eye[0] + t * dir.x, cam->eye[1] + t * dir.y, cam->eye[2] + t * dir.z);
        float d = scene(p, blobs, nblobs, 0.3f);
        if (d < 1e-3f || t > 50.f) break;
        t += d;
    }
    unsigned char shade = (unsigned char)(255.f * (1.f - i / 96.f));
    image[y * w + x] = make_uchar4(shade, shade, shade, 255);
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Camera {
    eye: [f32; 4],
    fwd: [f32; 4],
    right: [f32; 4],
    up: [f32; 4],
    fov: f32,
    time: f32,
    aspect: f32,
    pad: f32,
    pad2: [f32; 4],
}

pub struct Marcher {
    stream: sys::CUstream,
    module: sys::CUmodule,
    kernel: sys::CUfunction,
    d_cam: CUdeviceptr,
    d_blobs: CUdeviceptr,
    d_image: CUdeviceptr,
    blobs_host: *mut [f32; 4],
    image_host: *mut [u8; 4],
    max_blobs: usize,
    w: u32,
    h: u32,
}

impl Marcher {
    pub fn new(w: u32, h: u32, max_blobs: usize) -> Result<Self> {
        let mut dev = 0;
        let mut ctx = null_mut();
        let (mut stream, mut module, mut kernel) = (null_mut(), null_mut(), null_mut());
        let ptx = cudarc::nvrtc::compile_ptx(MARCH_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut d_cam, mut d_blobs, mut d_image) = (0, 0, 0);
        let (mut blobs_host, mut image_host): (*mut c_void, *mut c_void) = (null_mut(), null_mut());
        unsafe {
            sys::cuInit(0).result()?;
            sys::cuDeviceGet(&mut dev, 0).result()?;
            sys::cuDevicePrimaryCtxRetain(&mut ctx, dev).result()?;
            sys::cuCtxSetCurrent(ctx).result()?;
            sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()?;
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut kernel, module, c"march".as_ptr()).result()?;
            sys::cuMemAlloc_v2(&mut d_cam, std::mem::size_of::<Camera>()).result()?;
            sys::cuMemAlloc_v2(&mut d_blobs, max_blobs * 16).result()?;
            sys::cuMemAlloc_v2(&mut d_image, (w * h) as usize * 4).result()?;
            sys::cuMemAllocHost_v2(&mut blobs_host, max_blobs * 16).result()?;
            sys::cuMemAllocHost_v2(&mut image_host, (w * h) as usize * 4).result()?;
        }
        Ok(Self {
            stream, module, kernel, d_cam, d_blobs, d_image,
            blobs_host: blobs_host.cast(), image_host: image_host.cast(), max_blobs, w, h,
        })
    }

    /// Renders `frames` frames of blobs orbiting the origin; returns the last image's mean.
    pub fn animate(&mut self, frames: u32, nblobs: usize) -> Result<f32> {
        let nblobs = nblobs.min(self.max_blobs);
        let mut cam = Camera { fov: 0.8, aspect: self.w as f32 / self.h as f32, ..Default::default() };
        for f in 0..frames {
            let t = f as f32 / 30.0;
            cam.time = t;
            cam.eye = [6.0 * t.cos(), 1.5, 6.0 * t.sin(), 0.0];
            cam.fwd = [-t.cos(), -0.25, -t.sin(), 0.0];
            cam.right = [t.sin(), 0.0, -t.cos(), 0.0];
            cam.up = [0.0, 1.0, 0.0, 0.0];
            unsafe {
                // The previous frame's upload of the blob table must be done before it is rewritten.
                sys::cuStreamSynchronize(self.stream).result()?;
                let blobs = std::slice::from_raw_parts_mut(self.blobs_host, nblobs);
                for (i, b) in blobs.iter_mut().enumerate() {
                    let a = t + i as f32 * 0.7;
                    *b = [2.0 * a.cos(), (a * 1.3).sin(), 2.0 * a.sin(), 0.6];
                }
                sys::cuMemcpyHtoDAsync_v2(self.d_cam, (&cam as *const Camera).cast(), std::mem::size_of::<Camera>(), self.stream)
                    .result()?;
                sys::cuMemcpyHtoDAsync_v2(self.d_blobs, self.blobs_host.cast(), nblobs * 16, self.stream).result()?;
            }
            let (mut c, mut b, mut img) = (self.d_cam, self.d_blobs, self.d_image);
            let (mut nb, mut w, mut h) = (nblobs as u32, self.w, self.h);
            let mut params: [*mut c_void; 6] = [
                (&mut c as *mut u64).cast(),
                (&mut b as *mut u64).cast(),
                (&mut nb as *mut u32).cast(),
                (&mut img as *mut u64).cast(),
                (&mut w as *mut u32).cast(),
                (&mut h as *mut u32).cast(),
            ];
            unsafe {
                sys::cuLaunchKernel(self.kernel, w.div_ceil(16), h.div_ceil(16), 1, 16, 16, 1, 0, self.stream, params.as_mut_ptr(), null_mut())
                    .result()?;
            }
        }
        let px = (self.w * self.h) as usize;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(self.image_host.cast(), self.d_image, px * 4, self.stream).result()?;
            sys::cuStreamSynchronize(self.stream).result()?;
        }
        let img = unsafe { std::slice::from_raw_parts(self.image_host, px) };
        Ok(img.iter().map(|p| p[0] as f32).sum::<f32>() / px as f32)
    }
}

impl Drop for Marcher {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            for d in [self.d_cam, self.d_blobs, self.d_image] {
                let _ = sys::cuMemFree_v2(d);
            }
            let _ = sys::cuMemFreeHost(self.blobs_host.cast());
            let _ = sys::cuMemFreeHost(self.image_host.cast());
            let _ = sys::cuModuleUnload(self.module);
            let _ = sys::cuStreamDestroy_v2(self.stream);
        }
    }
}
