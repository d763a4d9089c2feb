//! case: a raymarcher on cudarc's `runtime::result` layer uploads its per-frame camera struct from the stack with `memcpy_htod_async` (64 bytes: under the size where pinning matters) and reads the image back into `cudaMallocHost` memory after a stream synchronize
//! expect: none
use std::ffi::c_void;
use std::mem::size_of;
use std::ptr::null_mut;

use cudarc::runtime::{result, sys};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Camera {
    pub eye: [f32; 4],
    pub forward: [f32; 4],
    pub up: [f32; 4],
    pub fov_y: f32,
    pub width: u32,
    pub height: u32,
    pub frame: u32,
}

pub struct Raymarcher {
    stream: sys::cudaStream_t,
    d_camera: *mut c_void,
    d_image: *mut c_void,
    h_image: *mut u32,
    pixels: usize,
}

impl Raymarcher {
    pub fn new(width: u32, height: u32) -> Result<Self, result::RuntimeError> {
        let pixels = (width * height) as usize;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)?;
        let d_camera = unsafe { result::malloc_sync(size_of::<Camera>())? };
        let d_image = unsafe { result::malloc_sync(pixels * 4)? };
        let mut h_image: *mut c_void = null_mut();
        unsafe { sys::cudaMallocHost(&mut h_image, pixels * 4).result()? };
        Ok(Self { stream, d_camera, d_image, h_image: h_image as *mut u32, pixels })
    }

    /// `render` enqueues the raymarch kernel on `self.stream` (the caller's CUDA code);
    /// this wraps the per-frame transfers around it and returns the mean green level.
    pub fn frame(&mut self, cam: Camera, render: impl FnOnce(sys::cudaStream_t, *const c_void, *mut c_void)) -> Result<u64, result::RuntimeError> {
        let image = unsafe { std::slice::from_raw_parts_mut(self.h_image, self.pixels) };
        unsafe {
            result::memcpy_htod_async(self.d_camera, std::slice::from_ref(&cam), self.stream)?;
            render(self.stream, self.d_camera, self.d_image);
            result::memcpy_dtoh_async(&mut image[..], self.d_image, self.stream)?;
            result::stream::synchronize(self.stream)?;
        }
        let green: u64 = image.iter().map(|&rgba| ((rgba >> 8) & 0xff) as u64).sum();
        Ok(green / self.pixels.max(1) as u64)
    }
}

impl Drop for Raymarcher {
    fn drop(&mut self) {
        unsafe {
            let _ = result::stream::synchronize(self.stream);
            let _ = sys::cudaFreeHost(self.h_image as *mut c_void);
            let _ = result::free_sync(self.d_image);
            let _ = result::free_sync(self.d_camera);
            let _ = result::stream::destroy(self.stream);
        }
    }
}
