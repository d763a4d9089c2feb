//! case: a bindings-style mesh loader uploads a boxed vertex slice of run-time length with cuMemcpyHtoDAsync_v2
//! expect: pageable_async_copy=1
use std::mem::size_of;

use cudarc::driver::sys::{self, CUdeviceptr, CUstream};
use cudarc::driver::DriverError;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct Vertex {
    pub pos: [f32; 3],
    pub normal: [f32; 3],
    pub uv: [f32; 2],
}

pub struct DeviceMesh {
    pub verts: CUdeviceptr,
    pub count: usize,
}

impl DeviceMesh {
    pub fn upload(stream: CUstream, verts: Box<[Vertex]>) -> Result<Self, DriverError> {
        let bytes = verts.len() * size_of::<Vertex>();
        let mut d: CUdeviceptr = 0;
        unsafe {
            sys::cuMemAlloc_v2(&mut d, bytes).result()?;
            sys::cuMemcpyHtoDAsync_v2(d, verts.as_ptr().cast(), bytes, stream).result()?; // EXPECT: pageable_async_copy
        }
        // The boxed vertices may go: a pageable source is staged before the call returns.
        drop(verts);
        Ok(Self { verts: d, count: bytes / size_of::<Vertex>() })
    }
}

impl Drop for DeviceMesh {
    fn drop(&mut self) {
        unsafe { sys::cuMemFree_v2(self.verts) };
    }
}

pub fn grid_mesh(stream: CUstream, side: usize) -> Result<DeviceMesh, DriverError> {
    let verts: Box<[Vertex]> = (0..side * side)
        .map(|i| Vertex { pos: [(i % side) as f32, 0.0, (i / side) as f32], normal: [0.0, 1.0, 0.0], uv: [0.0; 2] })
        .collect();
    DeviceMesh::upload(stream, verts)
}
