//! case: robot-arm inverse-kinematics service through hand-written libcuda bindings; each request's 64-byte parameter block goes up from the stack and the 32-byte result comes back into a stack struct with the Async copies, which are too small for pinning to matter, and a device-to-pageable copy has completed when it returns
//! expect: none

use std::ffi::{c_char, c_void, CString};
use std::mem::size_of;

use cudarc::nvrtc::compile_ptx;

type CUresult = i32;
type CUdeviceptr = u64;
type CUstream = *mut c_void;

#[link(name = "cuda")]
unsafe extern "C" {
    fn cuModuleLoadData(module: *mut *mut c_void, image: *const c_void) -> CUresult;
    fn cuModuleGetFunction(f: *mut *mut c_void, module: *mut c_void, name: *const c_char) -> CUresult;
    #[link_name = "cuMemAlloc_v2"]
    fn cuMemAlloc(dptr: *mut CUdeviceptr, bytes: usize) -> CUresult;
    #[link_name = "cuMemFree_v2"]
    fn cuMemFree(dptr: CUdeviceptr) -> CUresult;
    #[link_name = "cuMemcpyHtoDAsync_v2"]
    fn cuMemcpyHtoDAsync(dst: CUdeviceptr, src: *const c_void, bytes: usize, stream: CUstream) -> CUresult;
    #[link_name = "cuMemcpyDtoHAsync_v2"]
    fn cuMemcpyDtoHAsync(dst: *mut c_void, src: CUdeviceptr, bytes: usize, stream: CUstream) -> CUresult;
    fn cuLaunchKernel(f: *mut c_void, gx: u32, gy: u32, gz: u32, bx: u32, by: u32, bz: u32, shmem: u32, stream: CUstream, params: *mut *mut c_void, extra: *mut *mut c_void) -> CUresult;
}

const IK_SRC: &str = r#"
struct IkParams { float link[6]; float target[3]; float tolerance; int max_iters; int pad[5]; };
struct IkResult { float joints[6]; float error; int iters; };
extern "C" __global__ void ccd_solve(const IkParams* p, IkResult* out) {
    if (threadIdx.x != 0) return;
    float q[6] = {0, 0, 0, 0, 0, 0};
    float err = 1e9f; int it = 0;
    for (; it < p->max_iters && err > p->tolerance; ++it) {
        for (int j = 5; j >= 0; --j) {
            float x = 0, y = 0, a = 0;
            for (int k = 0; k < 6; ++k) { a += q[k]; x += p->link[k] * cosf(a); y += p->link[k] * sinf(a); }
            float dx = p->target[0] - x, dy = p->target[1] - y;
            q[j] += 0.1f * atan2f(dy, dx + 1e-6f);
            err = sqrtf(dx * dx + dy * dy);
        }
    }
    for (int k = 0; k < 6; ++k) out->joints[k] = q[k];
    out->error = err; out->iters = it;
}
"#;

#[repr(C)]
#[derive(Clone, Copy, Default)]
pub struct IkParams {
    pub link: [f32; 6],
    pub target: [f32; 3],
    pub tolerance: f32,
    pub max_iters: i32,
    pub _pad: [i32; 5],
}

#[repr(C)]
#[derive(Clone, Copy, Default, Debug)]
pub struct IkResult {
    pub joints: [f32; 6],
    pub error: f32,
    pub iters: i32,
}

pub struct IkService {
    solve: *mut c_void,
    stream: CUstream,
    params_dev: CUdeviceptr,
    result_dev: CUdeviceptr,
}

fn ok(rc: CUresult) -> Result<(), String> {
    if rc == 0 { Ok(()) } else { Err(format!("CUDA driver error {rc}")) }
}

impl IkService {
    /// `stream` belongs to the caller's control loop; a context must be current.
    pub fn new(stream: CUstream) -> Result<Self, Box<dyn std::error::Error>> {
        let image = CString::new(compile_ptx(IK_SRC)?.to_src())?;
        let (mut module, mut solve) = (std::ptr::null_mut(), std::ptr::null_mut());
        let (mut params_dev, mut result_dev) = (0, 0);
        unsafe {
            ok(cuModuleLoadData(&mut module, image.as_ptr() as *const c_void))?;
            ok(cuModuleGetFunction(&mut solve, module, c"ccd_solve".as_ptr()))?;
            ok(cuMemAlloc(&mut params_dev, size_of::<IkParams>()))?;
            ok(cuMemAlloc(&mut result_dev, size_of::<IkResult>()))?;
        }
        Ok(IkService { solve, stream, params_dev, result_dev })
    }

    pub fn solve(&self, params: IkParams) -> Result<IkResult, String> {
        let mut result = IkResult::default();
        let (mut p, mut r) = (self.params_dev, self.result_dev);
        let mut args = [&mut p as *mut u64 as *mut c_void, &mut r as *mut u64 as *mut c_void];
        unsafe {
            ok(cuMemcpyHtoDAsync(self.params_dev, &params as *const IkParams as *const c_void, size_of::<IkParams>(), self.stream))?;
            ok(cuLaunchKernel(self.solve, 1, 1, 1, 32, 1, 1, 0, self.stream, args.as_mut_ptr(), std::ptr::null_mut()))?;
            // into pageable memory: returns only once the copy (and the kernel before it) is done
            ok(cuMemcpyDtoHAsync(&mut result as *mut IkResult as *mut c_void, self.result_dev, size_of::<IkResult>(), self.stream))?;
        }
        if result.error.is_nan() {
            return Err("solver diverged".into());
        }
        Ok(result)
    }
}

impl Drop for IkService {
    fn drop(&mut self) {
        unsafe {
            cuMemFree(self.params_dev);
            cuMemFree(self.result_dev);
        }
    }
}
