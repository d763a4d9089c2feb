//! case: a volume renderer (cudarc's runtime::sys) uploads its per-frame camera block, a 128-byte #[repr(C)] struct on the stack, with cudaMemcpyAsync before each launch: pageable, but a constant size far under 64 KiB, and a pageable host-to-device copy has staged the data when the call returns
//! expect: none

use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::runtime::result::RuntimeError;
use cudarc::runtime::sys::{self, cudaMemcpyKind, cudaStream_t};

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct CameraBlock {
    pub view: [f32; 16],
    pub inv_proj: [f32; 12],
    pub eye: [f32; 3],
    pub step: f32,
}

const _: () = assert!(size_of::<CameraBlock>() == 128);

pub trait Camera {
    fn block(&self, frame: u64) -> CameraBlock;
}

pub struct OrbitCamera {
    pub radius: f32,
    pub speed: f32,
}

impl Camera for OrbitCamera {
    fn block(&self, frame: u64) -> CameraBlock {
        let a = frame as f32 * self.speed;
        let mut b = CameraBlock { step: 0.5, ..Default::default() };
        b.eye = [self.radius * a.cos(), 0.0, self.radius * a.sin()];
        b.view[0] = a.cos();
        b.view[2] = -a.sin();
        b.view[5] = 1.0;
        b.view[8] = a.sin();
        b.view[10] = a.cos();
        b.view[15] = 1.0;
        b
    }
}

pub struct VolumeRenderer {
    stream: cudaStream_t,
    d_camera: *mut c_void,
}

impl VolumeRenderer {
    pub fn new(stream: cudaStream_t) -> Result<Self, RuntimeError> {
        let mut d_camera = null_mut();
        unsafe { sys::cudaMalloc(&mut d_camera, size_of::<CameraBlock>()).result()? };
        Ok(Self { stream, d_camera })
    }

    /// Enqueues the camera upload for `frame`; the ray-march kernel is launched on the same stream next.
    pub fn set_camera(&self, camera: &dyn Camera, frame: u64) -> Result<(), RuntimeError> {
        let block = camera.block(frame);
        unsafe {
            sys::cudaMemcpyAsync(self.d_camera, (&block as *const CameraBlock).cast(), size_of::<CameraBlock>(), cudaMemcpyKind::cudaMemcpyHostToDevice, self.stream).result()
        }
    }

    pub fn camera_ptr(&self) -> *mut c_void {
        self.d_camera
    }
}

impl Drop for VolumeRenderer {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFree(self.d_camera);
        }
    }
}
