//! case: a Jacobi solver over a VMM allocation mapped twice (helpers in vmm.rs, kernel text in kernels.rs); the kernel writes through one mapping and reads neighbours through the other without fence.proxy.alias
//! expect: unfenced_vmm_alias=1
mod kernels;
mod vmm;

use std::ffi::c_void;
use std::ptr::null_mut;
use std::sync::Arc;

use cudarc::driver::sys;
use cudarc::driver::{CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr};

pub struct Solver {
    stream: Arc<CudaStream>,
    step_fn: CudaFunction,
    field: vmm::AliasPair,
    n: u32,
}

impl Solver {
    pub fn new(ctx: &Arc<CudaContext>, n: u32) -> Result<Solver, Box<dyn std::error::Error>> {
        let ptx = cudarc::nvrtc::compile_ptx(kernels::STENCIL_SRC)?;
        let module = ctx.load_module(ptx)?;
        let step_fn = module.load_function(kernels::ENTRY)?;
        let field = vmm::AliasPair::new(ctx.cu_device(), n as usize * 4)?;
        let stream = ctx.default_stream();
        unsafe { sys::cuMemsetD32Async(field.primary, 0, n as usize, stream.cu_stream()) }.result()?;
        Ok(Solver { stream, step_fn, field, n })
    }

    pub fn step(&self, rhs: &CudaSlice<f32>) -> Result<(), Box<dyn std::error::Error>> {
        let (rhs_ptr, _rec) = rhs.device_ptr(&self.stream);
        let (mut g, mut h, mut r, mut n) = (self.field.primary, self.field.secondary, rhs_ptr, self.n);
        let mut params = [&mut g as *mut _ as *mut c_void, &mut h as *mut _ as *mut c_void,
                          &mut r as *mut _ as *mut c_void, &mut n as *mut _ as *mut c_void];
        let blocks = self.n.div_ceil(256);
        unsafe {
            sys::cuLaunchKernel(self.step_fn.cu_function(), blocks, 1, 1, 256, 1, 1, 0, // EXPECT: unfenced_vmm_alias
                                self.stream.cu_stream(), params.as_mut_ptr(), null_mut()).result()?;
        }
        Ok(())
    }
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let solver = Solver::new(&ctx, 1 << 16)?;
    let rhs = solver.stream.alloc_zeros::<f32>(1 << 16)?;
    for _ in 0..100 {
        solver.step(&rhs)?;
    }
    solver.stream.synchronize()?;
    Ok(())
}
