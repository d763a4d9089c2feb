//! case: inference activation arena on one VMM reservation: reset() swaps in a new physical allocation by mapping it over the range without unmapping the old mapping first, and Drop releases the handle and frees the reserved range while it is still mapped
//! expect: vmm_lifecycle=2

mod arena;
mod lifecycle;

use std::error::Error;
use std::ffi::{c_void, CString};
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUdeviceptr};

pub use arena::ActivationArena;

type Result<T> = std::result::Result<T, Box<dyn Error>>;

const MLP_SRC: &str = r#"
extern "C" __global__ void dense_relu(const float* x, const float* w, const float* b, float* y,
                                      unsigned in_dim, unsigned out_dim, unsigned batch) {
    unsigned o = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned r = blockIdx.y;
    if (o >= out_dim || r >= batch) return;
    float acc = b[o];
    for (unsigned i = 0; i < in_dim; ++i) acc += x[r * in_dim + i] * w[i * out_dim + o];
    y[r * out_dim + o] = fmaxf(acc, 0.f);
}
"#;

pub struct Mlp {
    layers: Vec<(CUdeviceptr, CUdeviceptr, u32, u32)>, // weights, bias, in, out
    module: sys::CUmodule,
    dense: sys::CUfunction,
}

impl Mlp {
    pub fn load(layers: Vec<(CUdeviceptr, CUdeviceptr, u32, u32)>) -> Result<Self> {
        let ptx = cudarc::nvrtc::compile_ptx(MLP_SRC)?;
        let image = CString::new(ptx.to_src())?;
        let (mut module, mut dense) = (null_mut(), null_mut());
        unsafe {
            sys::cuModuleLoadData(&mut module, image.as_ptr().cast()).result()?;
            sys::cuModuleGetFunction(&mut dense, module, c"dense_relu".as_ptr()).result()?;
        }
        Ok(Self { layers, module, dense })
    }

    /// Runs the batch through every layer, activations bump-allocated from `arena`.
    pub fn forward(&self, arena: &mut ActivationArena, input: CUdeviceptr, batch: u32) -> Result<CUdeviceptr> {
        let mut x = input;
        for &(w, b, in_dim, out_dim) in &self.layers {
            let y = arena.alloc((batch * out_dim) as usize * 4).ok_or("activation arena exhausted")?;
            let (mut x_, mut w_, mut b_, mut y_) = (x, w, b, y);
            let (mut i_, mut o_, mut n_) = (in_dim, out_dim, batch);
            let mut params: [*mut c_void; 7] = [
                (&mut x_ as *mut u64).cast(),
                (&mut w_ as *mut u64).cast(),
                (&mut b_ as *mut u64).cast(),
                (&mut y_ as *mut u64).cast(),
                (&mut i_ as *mut u32).cast(),
                (&mut o_ as *mut u32).cast(),
                (&mut n_ as *mut u32).cast(),
            ];
            unsafe {
                sys::cuLaunchKernel(self.dense, out_dim.div_ceil(128), batch, 1, 128, 1, 1, 0, arena.stream, params.as_mut_ptr(), null_mut())
                    .result()?;
            }
            x = y;
        }
        Ok(x)
    }
}

impl Drop for Mlp {
    fn drop(&mut self) {
        unsafe {
            let _ = sys::cuModuleUnload(self.module);
        }
    }
}

/// Serves requests one after the other; every request starts with an empty arena.
pub fn serve(mlp: &Mlp, requests: &[(CUdeviceptr, u32)], out_pinned: *mut f32, out_dim: u32) -> Result<()> {
    let mut stream = null_mut();
    unsafe { sys::cuStreamCreate(&mut stream, sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32).result()? };
    let mut arena = ActivationArena::new(0, stream, 256 << 20)?;
    for &(input, batch) in requests {
        arena.reset()?;
        let y = mlp.forward(&mut arena, input, batch)?;
        unsafe {
            sys::cuMemcpyDtoHAsync_v2(out_pinned.cast(), y, (batch * out_dim) as usize * 4, stream).result()?;
            sys::cuStreamSynchronize(stream).result()?;
        }
    }
    drop(arena);
    unsafe { sys::cuStreamDestroy_v2(stream).result()? };
    Ok(())
}
