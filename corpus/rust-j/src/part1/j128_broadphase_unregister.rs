//! case: rigid-body broadphase page-locks its body AABB array with cuMemHostRegister (cudarc `sys`) for async uploads, but the contact-pair Vec is only ever read back with a blocking copy; its teardown unregisters both, and the contact buffer was never registered
//! expect: mismatched_free=1

use cudarc::driver::sys;

#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Aabb {
    pub min: [f32; 3],
    pub max: [f32; 3],
}

#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub struct Pair {
    pub a: u32,
    pub b: u32,
}

pub struct Broadphase {
    stream: sys::CUstream,
    sweep: sys::CUfunction,
    bodies: Vec<Aabb>,
    contacts: Vec<Pair>,
    d_bodies: sys::CUdeviceptr,
    d_pairs: sys::CUdeviceptr,
    d_count: sys::CUdeviceptr,
}

impl Broadphase {
    pub fn new(stream: sys::CUstream, sweep: sys::CUfunction, max_bodies: usize, max_pairs: usize) -> Result<Self, sys::CUresult> {
        let mut s = Broadphase {
            stream,
            sweep,
            bodies: vec![Aabb::default(); max_bodies],
            contacts: vec![Pair::default(); max_pairs],
            d_bodies: 0,
            d_pairs: 0,
            d_count: 0,
        };
        unsafe {
            let r = sys::cuMemHostRegister_v2(
                s.bodies.as_mut_ptr().cast(),
                max_bodies * std::mem::size_of::<Aabb>(),
                sys::CU_MEMHOSTREGISTER_PORTABLE,
            );
            if r != sys::CUresult::CUDA_SUCCESS {
                return Err(r);
            }
            sys::cuMemAlloc_v2(&mut s.d_bodies, max_bodies * std::mem::size_of::<Aabb>()).result().map_err(|e| e.0)?;
            sys::cuMemAlloc_v2(&mut s.d_pairs, max_pairs * std::mem::size_of::<Pair>()).result().map_err(|e| e.0)?;
            sys::cuMemAlloc_v2(&mut s.d_count, 4).result().map_err(|e| e.0)?;
        }
        Ok(s)
    }

    pub fn bodies_mut(&mut self) -> &mut [Aabb] {
        &mut self.bodies
    }

    pub fn find_pairs(&mut self, n: usize) -> Result<&[Pair], sys::CUresult> {
        let bytes = n * std::mem::size_of::<Aabb>();
        let mut count = 0u32;
        unsafe {
            sys::cuMemcpyHtoDAsync_v2(self.d_bodies, self.bodies.as_ptr().cast(), bytes, self.stream).result().map_err(|e| e.0)?;
            sys::cuMemsetD32Async(self.d_count, 0, 1, self.stream).result().map_err(|e| e.0)?;
            let (mut b, mut p, mut c, mut nn, mut cap) =
                (self.d_bodies, self.d_pairs, self.d_count, n as i32, self.contacts.len() as i32);
            let mut params = [
                (&mut b as *mut sys::CUdeviceptr).cast::<std::ffi::c_void>(),
                (&mut p as *mut sys::CUdeviceptr).cast(),
                (&mut c as *mut sys::CUdeviceptr).cast(),
                (&mut nn as *mut i32).cast(),
                (&mut cap as *mut i32).cast(),
            ];
            sys::cuLaunchKernel(self.sweep, (n as u32).div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), std::ptr::null_mut())
                .result()
                .map_err(|e| e.0)?;
            sys::cuStreamSynchronize(self.stream).result().map_err(|e| e.0)?;
            sys::cuMemcpyDtoH_v2((&mut count as *mut u32).cast(), self.d_count, 4).result().map_err(|e| e.0)?;
            let k = (count as usize).min(self.contacts.len());
            sys::cuMemcpyDtoH_v2(self.contacts.as_mut_ptr().cast(), self.d_pairs, k * std::mem::size_of::<Pair>())
                .result()
                .map_err(|e| e.0)?;
            Ok(&self.contacts[..k])
        }
    }
}

impl Drop for Broadphase {
    fn drop(&mut self) {
        unsafe {
            sys::cuStreamSynchronize(self.stream);
            sys::cuMemHostUnregister(self.bodies.as_mut_ptr().cast());
            sys::cuMemHostUnregister(self.contacts.as_mut_ptr().cast()); // EXPECT: mismatched_free
            sys::cuMemFree_v2(self.d_bodies);
            sys::cuMemFree_v2(self.d_pairs);
            sys::cuMemFree_v2(self.d_count);
        }
    }
}
