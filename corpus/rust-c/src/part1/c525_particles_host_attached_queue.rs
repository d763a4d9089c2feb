//! case: the particle spawn queue allocated with `cudaMallocManaged(.., cudaMemAttachHost)` (cudarc's `runtime::sys`): the host fills it while an unrelated kernel runs, which is legal on every device since host-attached memory is not taken by kernels; the queue is attached to the stream and used by a kernel only after a synchronize
//! expect: none
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::runtime::sys;

fn ok(rc: sys::cudaError_t) -> Result<(), sys::cudaError_t> {
    if rc == sys::cudaError_t::cudaSuccess { Ok(()) } else { Err(rc) }
}

pub struct SpawnQueue {
    ptr: *mut f32,
    capacity: usize,
    len: usize,
    stream: sys::cudaStream_t,
}

impl SpawnQueue {
    pub fn new(capacity: usize, stream: sys::cudaStream_t) -> Result<Self, sys::cudaError_t> {
        let mut raw: *mut c_void = null_mut();
        unsafe { ok(sys::cudaMallocManaged(&mut raw, capacity * 4 * 4, sys::cudaMemAttachHost))? };
        Ok(Self { ptr: raw as *mut f32, capacity, len: 0, stream })
    }

    /// Called while the force kernel (on other memory) may be running.
    pub fn push(&mut self, p: [f32; 4]) -> bool {
        if self.len == self.capacity {
            return false;
        }
        let slot = unsafe { std::slice::from_raw_parts_mut(self.ptr.add(self.len * 4), 4) };
        slot.copy_from_slice(&p);
        self.len += 1;
        true
    }

    /// Hands the queue to the GPU: waits for the frame's work, attaches the queue to the
    /// stream, then launches the spawn kernel on it.
    pub fn flush(&mut self, spawn_kernel: *const c_void, particles: *mut c_void) -> Result<usize, sys::cudaError_t> {
        unsafe {
            ok(sys::cudaStreamSynchronize(self.stream))?;
            ok(sys::cudaStreamAttachMemAsync(self.stream, self.ptr as *mut c_void, 0, sys::cudaMemAttachSingle))?;
            let mut queue = self.ptr as *mut c_void;
            let mut particles = particles;
            let mut count = self.len as i32;
            let mut args: [*mut c_void; 3] = [
                &mut queue as *mut _ as *mut c_void,
                &mut particles as *mut _ as *mut c_void,
                &mut count as *mut _ as *mut c_void,
            ];
            let grid = sys::dim3 { x: (self.len as u32).div_ceil(128).max(1), y: 1, z: 1 };
            let block = sys::dim3 { x: 128, y: 1, z: 1 };
            ok(sys::cudaLaunchKernel(spawn_kernel, grid, block, args.as_mut_ptr(), 0, self.stream))?;
            ok(sys::cudaStreamSynchronize(self.stream))?;
            // Back to the host for the next frame's pushes.
            ok(sys::cudaStreamAttachMemAsync(self.stream, self.ptr as *mut c_void, 0, sys::cudaMemAttachHost))?;
            ok(sys::cudaStreamSynchronize(self.stream))?;
        }
        Ok(std::mem::take(&mut self.len))
    }
}

impl Drop for SpawnQueue {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cudaStreamSynchronize(self.stream);
            let _ = sys::cudaFree(self.ptr as *mut c_void);
        }
    }
}
