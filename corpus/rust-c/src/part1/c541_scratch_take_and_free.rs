//! case: an attention layer keeps an optional workspace from `cuMemAllocAsync`; when the sequence length changes it `take`s the old workspace and releases it with `cuMemFree` right after enqueuing the kernel that uses it (cuMemFree does not wait for stream-ordered allocations: the kernel may still be using it)
//! expect: missing_sync=1
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::{result, sys};
use cudarc::nvrtc::compile_ptx;

const ATTN_SRC: &str = r#"
extern "C" __global__ void scores_softmax(const float* q, const float* k, float* workspace, float* out, int seq) {
    int row = blockIdx.x;
    if (row >= seq) return;
    float m = -1e30f;
    for (int j = threadIdx.x; j < seq; j += blockDim.x) {
        float s = q[row] * k[j];
        workspace[row * seq + j] = s;
        m = fmaxf(m, s);
    }
    __syncthreads();
    for (int j = threadIdx.x; j < seq; j += blockDim.x)
        out[row * seq + j] = __expf(workspace[row * seq + j] - m);
}
"#;

pub struct Attention {
    stream: sys::CUstream,
    kernel: sys::CUfunction,
    workspace: Option<(sys::CUdeviceptr, usize)>,
}

impl Attention {
    pub fn new(stream: sys::CUstream) -> Result<Self, Box<dyn std::error::Error>> {
        let ptx = CString::new(compile_ptx(ATTN_SRC)?.to_src())?;
        let module = unsafe { result::module::load_data(ptx.as_ptr() as *const c_void)? };
        let kernel = unsafe { result::module::get_function(module, CString::new("scores_softmax")?)? };
        Ok(Self { stream, kernel, workspace: None })
    }

    fn ensure_workspace(&mut self, bytes: usize) -> Result<sys::CUdeviceptr, result::DriverError> {
        match self.workspace {
            Some((ptr, cap)) if cap >= bytes => Ok(ptr),
            _ => {
                let mut ptr = 0;
                unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, self.stream).result()? };
                if let Some((old, _)) = self.workspace.replace((ptr, bytes)) {
                    unsafe { sys::cuMemFreeAsync(old, self.stream).result()? };
                }
                Ok(ptr)
            }
        }
    }

    pub fn forward(&mut self, q: sys::CUdeviceptr, k: sys::CUdeviceptr, out: sys::CUdeviceptr, seq: usize) -> Result<(), result::DriverError> {
        let mut ws = self.ensure_workspace(seq * seq * 4)?;
        let (mut q, mut k, mut out, mut seq_i) = (q, k, out, seq as i32);
        let mut params: [*mut c_void; 5] = [
            &mut q as *mut _ as *mut c_void,
            &mut k as *mut _ as *mut c_void,
            &mut ws as *mut _ as *mut c_void,
            &mut out as *mut _ as *mut c_void,
            &mut seq_i as *mut _ as *mut c_void,
        ];
        unsafe {
            sys::cuLaunchKernel(self.kernel, seq as u32, 1, 1, 128, 1, 1, 0, self.stream, params.as_mut_ptr(), null_mut()).result()?;
        }
        // Long prompts get a one-off workspace: give it back straight away.
        if seq > 8192 {
            if let Some((big, _)) = self.workspace.take() {
                unsafe { sys::cuMemFree_v2(big).result()? }; // EXPECT: missing_sync
            }
        }
        Ok(())
    }
}

impl Drop for Attention {
    fn drop(&mut self) {
        if let Some((ptr, _)) = self.workspace.take() {
            unsafe {
                let _ = sys::cuMemFreeAsync(ptr, self.stream);
                let _ = sys::cuStreamSynchronize(self.stream);
            }
        }
    }
}
