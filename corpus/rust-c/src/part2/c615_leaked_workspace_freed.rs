//! case: a cudarc workspace is leaked to a raw pointer for a C solver library, and released later with `driver::result::free_sync` (cuMemFree, which also accepts cudarc's stream-ordered allocations) after the context is synchronized
//! expect: none

use std::error::Error;
use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::result;
use cudarc::driver::{sys, CudaContext, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

// A vendor solver that takes a caller-provided device workspace.
unsafe extern "C" {
    fn sparse_solver_set_workspace(handle: *mut c_void, workspace: sys::CUdeviceptr, bytes: usize) -> i32;
    fn sparse_solver_run(handle: *mut c_void, stream: sys::CUstream) -> i32;
}

const INIT_SRC: &str = r#"
extern "C" __global__ void fill_u32(unsigned* p, unsigned v, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = v;
}
"#;

pub struct SolverSession {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    handle: *mut c_void,
    workspace: Option<(sys::CUdeviceptr, usize)>,
}

impl SolverSession {
    pub fn new(ctx: Arc<CudaContext>, handle: *mut c_void, words: usize) -> Result<Self, Box<dyn Error>> {
        let stream = ctx.new_stream()?;
        let fill = ctx.load_module(compile_ptx(INIT_SRC)?)?.load_function("fill_u32")?;
        let mut ws = stream.alloc_zeros::<u32>(words)?;
        let (marker, n) = (0xdead_beefu32, words as u32);
        unsafe {
            stream.launch_builder(&fill).arg(&mut ws).arg(&marker).arg(&n).launch(LaunchConfig::for_num_elems(n))?;
        }
        let bytes = ws.num_bytes();
        // The solver owns the memory from here; cudarc must not free it.
        let ptr = ws.leak();
        let rc = unsafe { sparse_solver_set_workspace(handle, ptr, bytes) };
        if rc != 0 {
            return Err(format!("solver rejected workspace: {rc}").into());
        }
        Ok(Self { ctx, stream, handle, workspace: Some((ptr, bytes)) })
    }

    pub fn solve(&self) -> Result<(), Box<dyn Error>> {
        let rc = unsafe { sparse_solver_run(self.handle, self.stream.cu_stream()) };
        if rc != 0 {
            return Err(format!("solver failed: {rc}").into());
        }
        self.stream.synchronize()?;
        Ok(())
    }

    pub fn close(mut self) -> Result<(), Box<dyn Error>> {
        if let Some((ptr, _bytes)) = self.workspace.take() {
            // Everything that may touch the workspace (our fill, the solver) is done first.
            self.ctx.synchronize()?;
            unsafe { result::free_sync(ptr)? };
        }
        Ok(())
    }
}
