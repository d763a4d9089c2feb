//! case: particle-mesh gravity solver keeps its density mesh in a raw VMM pool (cudarc driver::sys): reserve, create, map, cuMemSetAccess, then memset and kernel use; Drop synchronizes, unmaps, releases and frees the range in the documented order (near-miss for vmm_lifecycle)
//! expect: none

use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{sys, DriverError};
use cudarc::nvrtc::compile_ptx;

const DEPOSIT_SRC: &str = r#"
extern "C" __global__ void cic_deposit(const float4* particles, float* mesh, unsigned n, unsigned dim, float cell) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float4 p = particles[i];
    unsigned x = (unsigned)(p.x / cell) % dim, y = (unsigned)(p.y / cell) % dim, z = (unsigned)(p.z / cell) % dim;
    atomicAdd(&mesh[(z * dim + y) * dim + x], p.w);
}
"#;

pub struct MeshPool {
    stream: sys::CUstream,
    va: sys::CUdeviceptr,
    size: usize,
    handle: sys::CUmemGenericAllocationHandle,
    module: sys::CUmodule,
    deposit: sys::CUfunction,
    pub dim: u32,
}

fn device_prop(ordinal: i32) -> sys::CUmemAllocationProp {
    let mut p: sys::CUmemAllocationProp = unsafe { std::mem::zeroed() };
    p.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    p.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = ordinal;
    p
}

impl MeshPool {
    pub fn new(ordinal: i32, stream: sys::CUstream, dim: u32) -> Result<Self, Box<dyn std::error::Error>> {
        let prop = device_prop(ordinal);
        let bytes = (dim as usize).pow(3) * 4;
        let mut gran = 0usize;
        let image = CString::new(compile_ptx(DEPOSIT_SRC)?.to_src())?;
        let mut pool = MeshPool { stream, va: 0, size: 0, handle: 0, module: null_mut(), deposit: null_mut(), dim };
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_RECOMMENDED).result()?;
            pool.size = bytes.div_ceil(gran) * gran;
            sys::cuMemAddressReserve(&mut pool.va, pool.size, 0, 0, 0).result()?;
            sys::cuMemCreate(&mut pool.handle, pool.size, &prop, 0).result()?;
            sys::cuMemMap(pool.va, pool.size, 0, pool.handle, 0).result()?;
            let access = sys::CUmemAccessDesc { location: prop.location, flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE };
            sys::cuMemSetAccess(pool.va, pool.size, &access, 1).result()?;
            sys::cuModuleLoadData(&mut pool.module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut pool.deposit, pool.module, c"cic_deposit".as_ptr()).result()?;
        }
        Ok(pool)
    }

    /// Deposits the particles (x, y, z, mass) onto the mesh; `particles` is device memory.
    pub fn deposit(&self, particles: sys::CUdeviceptr, n: u32, cell: f32) -> Result<(), DriverError> {
        let (mut p, mut mesh, mut n, mut dim, mut cell) = (particles, self.va, n, self.dim, cell);
        let mut params: [*mut c_void; 5] = [
            (&mut p) as *mut _ as *mut c_void,
            (&mut mesh) as *mut _ as *mut c_void,
            (&mut n) as *mut u32 as *mut c_void,
            (&mut dim) as *mut u32 as *mut c_void,
            (&mut cell) as *mut f32 as *mut c_void,
        ];
        unsafe {
            sys::cuMemsetD32Async(self.va, 0, self.size / 4, self.stream).result()?;
            sys::cuLaunchKernel(self.deposit, n.div_ceil(256), 1, 1, 256, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()
        }
    }
}

impl Drop for MeshPool {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuStreamSynchronize(self.stream);
            let _ = sys::cuMemUnmap(self.va, self.size);
            let _ = sys::cuMemRelease(self.handle);
            let _ = sys::cuMemAddressFree(self.va, self.size);
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}
