//! case: a pitched RGBA image is blurred on the device and downloaded row by row with cudaMemcpy2D into a host Vec, but the download states cudaMemcpyHostToDevice.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct RgbaFrame {
    pub width: usize,
    pub height: usize,
    pub data: Vec<[u8; 4]>,
}

pub struct PitchedImage {
    pub ptr: *mut c_void,
    pub pitch: usize,
    pub width: usize,
    pub height: usize,
}

pub fn upload_frame(frame: &RgbaFrame) -> PitchedImage {
    let row = frame.width * 4;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    let mut pitch = 0usize;
    unsafe {
        sys::cudaMallocPitch(&mut ptr, &mut pitch, row, frame.height);
        sys::cudaMemcpy2D(
            ptr,
            pitch,
            frame.data.as_ptr() as *const c_void,
            row,
            row,
            frame.height,
            sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
        );
    }
    PitchedImage { ptr, pitch, width: frame.width, height: frame.height }
}

pub fn download_frame(img: &PitchedImage) -> RgbaFrame {
    let row = img.width * 4;
    let mut data = vec![[0u8; 4]; img.width * img.height];
    unsafe {
        sys::cudaDeviceSynchronize();
        sys::cudaMemcpy2D( // EXPECT: memcpy_kind_mismatch
            data.as_mut_ptr() as *mut c_void,
            row,
            img.ptr,
            img.pitch,
            row,
            img.height,
            sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
        );
    }
    RgbaFrame { width: img.width, height: img.height, data }
}

pub fn blur_roundtrip(frame: &RgbaFrame) -> RgbaFrame {
    let img = upload_frame(frame);
    // box blur kernel on img.ptr
    let out = download_frame(&img);
    unsafe { sys::cudaFree(img.ptr) };
    out
}
