//! case: multigrid smoother workspace with two VMM mappings (matrix diagonal and vectors) in one reserved range; set up and used correctly, but Drop returns the address range with cuMemAddressFree before unmapping the two mappings
//! expect: vmm_lifecycle=1

use std::ffi::{c_void, CString};
use std::sync::Arc;

use cudarc::driver::{result, sys, CudaContext, DriverError};
use cudarc::nvrtc::compile_ptx;

const SMOOTH_SRC: &str = r#"
extern "C" __global__ void weighted_jacobi(const float* diag, const float* b, const float* ax, float* x, int n, float omega) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] += omega * (b[i] - ax[i]) / diag[i];
}
"#;

fn vmm_prop(dev: i32) -> sys::CUmemAllocationProp {
    sys::CUmemAllocationProp {
        type_: sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED,
        requestedHandleTypes: sys::CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_NONE,
        location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
        win32HandleMetaData: std::ptr::null_mut(),
        allocFlags: sys::CUmemAllocationProp_st__bindgen_ty_1 { compressionType: 0, gpuDirectRDMACapable: 0, usage: 0, reserved: [0; 4] },
    }
}

pub struct SmootherWorkspace {
    ctx: Arc<CudaContext>,
    func: sys::CUfunction,
    base: sys::CUdeviceptr,
    diag_bytes: usize,
    vec_bytes: usize,
    diag_handle: sys::CUmemGenericAllocationHandle,
    vec_handle: sys::CUmemGenericAllocationHandle,
    n: usize,
}

impl SmootherWorkspace {
    pub fn new(ctx: Arc<CudaContext>, n: usize) -> Result<Self, Box<dyn std::error::Error>> {
        let dev = ctx.ordinal() as i32;
        let prop = vmm_prop(dev);
        let mut gran = 0;
        let ptx = CString::new(compile_ptx(SMOOTH_SRC)?.to_src())?;
        unsafe {
            sys::cuMemGetAllocationGranularity(&mut gran, &prop, sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM).result()?;
            let diag_bytes = (n * 4).next_multiple_of(gran);
            let vec_bytes = (3 * n * 4).next_multiple_of(gran); // b, Ax, x
            let mut base = 0;
            sys::cuMemAddressReserve(&mut base, diag_bytes + vec_bytes, 0, 0, 0).result()?;
            let (mut diag_handle, mut vec_handle) = (0, 0);
            sys::cuMemCreate(&mut diag_handle, diag_bytes, &prop, 0).result()?;
            sys::cuMemCreate(&mut vec_handle, vec_bytes, &prop, 0).result()?;
            sys::cuMemMap(base, diag_bytes, 0, diag_handle, 0).result()?;
            sys::cuMemMap(base + diag_bytes as u64, vec_bytes, 0, vec_handle, 0).result()?;
            let access = sys::CUmemAccessDesc {
                location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: dev },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            sys::cuMemSetAccess(base, diag_bytes + vec_bytes, &access, 1).result()?;
            let module = result::module::load_data(ptx.as_ptr() as *const c_void)?;
            let func = result::module::get_function(module, CString::new("weighted_jacobi")?)?;
            Ok(SmootherWorkspace { ctx, func, base, diag_bytes, vec_bytes, diag_handle, vec_handle, n })
        }
    }

    pub fn diag(&self) -> sys::CUdeviceptr {
        self.base
    }
    pub fn rhs(&self) -> sys::CUdeviceptr {
        self.base + self.diag_bytes as u64
    }
    pub fn ax(&self) -> sys::CUdeviceptr {
        self.rhs() + (self.n * 4) as u64
    }
    pub fn x(&self) -> sys::CUdeviceptr {
        self.ax() + (self.n * 4) as u64
    }

    pub fn smooth(&self, stream: sys::CUstream, omega: f32) -> Result<(), DriverError> {
        let (mut d, mut b, mut ax, mut x) = (self.diag(), self.rhs(), self.ax(), self.x());
        let (mut n, mut omega) = (self.n as i32, omega);
        let mut args = [
            &mut d as *mut u64 as *mut c_void,
            &mut b as *mut u64 as *mut c_void,
            &mut ax as *mut u64 as *mut c_void,
            &mut x as *mut u64 as *mut c_void,
            &mut n as *mut i32 as *mut c_void,
            &mut omega as *mut f32 as *mut c_void,
        ];
        let blocks = (self.n as u32).div_ceil(256);
        unsafe { result::launch_kernel(self.func, (blocks, 1, 1), (256, 1, 1), 0, stream, &mut args) }
    }
}

impl Drop for SmootherWorkspace {
    fn drop(&mut self) {
        let _ = self.ctx.synchronize();
        unsafe {
            let total = self.diag_bytes + self.vec_bytes;
            let _ = sys::cuMemAddressFree(self.base, total); // EXPECT: vmm_lifecycle
            let _ = sys::cuMemUnmap(self.base, self.diag_bytes);
            let _ = sys::cuMemUnmap(self.base + self.diag_bytes as u64, self.vec_bytes);
            let _ = sys::cuMemRelease(self.diag_handle);
            let _ = sys::cuMemRelease(self.vec_handle);
        }
    }
}
