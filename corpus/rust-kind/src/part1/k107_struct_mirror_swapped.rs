//! case: a host/device mirrored buffer struct allocates its device side in `new` and its `pull` method copies device to host with the arguments in upload order (dst = device field, src = host Vec) under cudaMemcpyDeviceToHost.
//! expect: memcpy_kind_mismatch=1
use cudarc::runtime::sys;
use std::ffi::c_void;

pub struct Mirrored {
    pub host: Vec<f32>,
    pub dev: *mut c_void,
    pub bytes: usize,
}

impl Mirrored {
    pub fn new(len: usize) -> Self {
        let bytes = len * std::mem::size_of::<f32>();
        let mut dev: *mut c_void = std::ptr::null_mut();
        unsafe {
            sys::cudaMalloc(&mut dev, bytes);
        }
        Mirrored { host: vec![0.0; len], dev, bytes }
    }

    pub fn push(&mut self) {
        unsafe {
            sys::cudaMemcpy(
                self.dev,
                self.host.as_ptr() as *const c_void,
                self.bytes,
                sys::cudaMemcpyKind::cudaMemcpyHostToDevice,
            );
        }
    }

    pub fn pull(&mut self) {
        unsafe {
            sys::cudaMemcpy( // EXPECT: memcpy_kind_mismatch
                self.dev,
                self.host.as_ptr() as *const c_void,
                self.bytes,
                sys::cudaMemcpyKind::cudaMemcpyDeviceToHost,
            );
        }
    }
}

impl Drop for Mirrored {
    fn drop(&mut self) {
        unsafe {
            sys::cudaFree(self.dev);
        }
    }
}

pub fn relax_velocities(v: &mut Mirrored, steps: usize) -> f32 {
    for x in v.host.iter_mut() {
        *x = 1.0;
    }
    v.push();
    for _ in 0..steps {
        // damping kernel on v.dev
    }
    v.pull();
    v.host.iter().copied().fold(0.0, f32::max)
}
