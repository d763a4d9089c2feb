//! case: a mesh uploader allocates its vertex staging buffer with `cuMemHostAlloc(.., CU_MEMHOSTALLOC_WRITECOMBINED)` (cudarc's `sys`), fills it, then scans it on the host to compute the bounding box before the upload: a read of write-combined memory
//! expect: write_combined_host_read=1
use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Aabb {
    pub lo: [f32; 3],
    pub hi: [f32; 3],
}

impl Aabb {
    pub const EMPTY: Aabb = Aabb { lo: [f32::MAX; 3], hi: [f32::MIN; 3] };

    fn grow(self, v: [f32; 3]) -> Aabb {
        let mut out = self;
        for k in 0..3 {
            out.lo[k] = out.lo[k].min(v[k]);
            out.hi[k] = out.hi[k].max(v[k]);
        }
        out
    }
}

pub struct VertexStaging {
    ptr: *mut [f32; 3],
    capacity: usize,
    len: usize,
}

impl VertexStaging {
    pub fn new(capacity: usize) -> Result<Self, sys::CUresult> {
        let mut p: *mut c_void = null_mut();
        let rc = unsafe { sys::cuMemHostAlloc(&mut p, capacity * 12, sys::CU_MEMHOSTALLOC_WRITECOMBINED) };
        if rc != sys::CUresult::CUDA_SUCCESS {
            return Err(rc);
        }
        Ok(Self { ptr: p as *mut [f32; 3], capacity, len: 0 })
    }

    /// Writes the decoded vertices (streaming writes: what write-combining is for).
    pub fn fill<I: IntoIterator<Item = [f32; 3]>>(&mut self, verts: I) {
        self.len = 0;
        for (i, v) in verts.into_iter().take(self.capacity).enumerate() {
            unsafe { self.ptr.add(i).write(v) };
            self.len = i + 1;
        }
    }

    /// Axis-aligned bounds of what was staged, for the culling structure.
    pub fn bounds(&self) -> Aabb {
        let staged = unsafe { std::slice::from_raw_parts(self.ptr as *const [f32; 3], self.len) };
        staged.iter().fold(Aabb::EMPTY, |b, v| b.grow(*v)) // EXPECT: write_combined_host_read
    }

    pub fn upload(&self, dst: sys::CUdeviceptr, stream: sys::CUstream) -> Result<(), sys::CUresult> {
        let rc = unsafe { sys::cuMemcpyHtoDAsync_v2(dst, self.ptr as *const c_void, self.len * 12, stream) };
        if rc == sys::CUresult::CUDA_SUCCESS { Ok(()) } else { Err(rc) }
    }
}

impl Drop for VertexStaging {
    fn drop(&mut self) {
        // Owners synchronize the upload stream before dropping the staging buffer.
        unsafe {
            sys::cuMemFreeHost(self.ptr as *mut c_void);
        }
    }
}
