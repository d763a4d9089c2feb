//! case: a trainer double-buffers its input batches in memory from `cudaMallocManaged(.., cudaMemAttachGlobal)`: while the step kernel (weights and the current batch only) runs, a scoped worker thread fills the other managed batch for the next step, which faults on devices without concurrent managed access
//! expect: managed_concurrent_access=1

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use cudarc::runtime::sys as rt;

const STEP_SRC: &str = r#"
extern "C" __global__ void linear_step(float* w, const float* batch, unsigned int dim, unsigned int rows, float lr)
{
    unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= dim) return;
    float g = 0.0f;
    for (unsigned int r = 0; r < rows; ++r) g += batch[r * dim + j] - w[j];
    w[j] += lr * g / rows;
}
"#;

struct ManagedBatch {
    ptr: *mut f32,
    len: usize,
}

unsafe impl Send for ManagedBatch {}

impl ManagedBatch {
    fn new(len: usize) -> Result<Self, rt::cudaError_t> {
        let mut p: *mut c_void = null_mut();
        let rc = unsafe { rt::cudaMallocManaged(&mut p, len * 4, rt::cudaMemAttachGlobal) };
        if rc != rt::cudaError_t::cudaSuccess {
            return Err(rc);
        }
        Ok(Self { ptr: p.cast(), len })
    }

    fn as_mut_slice(&mut self) -> &mut [f32] {
        unsafe { std::slice::from_raw_parts_mut(self.ptr, self.len) }
    }
}

impl Drop for ManagedBatch {
    fn drop(&mut self) {
        unsafe {
            let _ = rt::cudaFree(self.ptr.cast());
        }
    }
}

fn synth_row(step: usize, r: usize, j: usize) -> f32 {
    (((step * 31 + r * 7 + j) % 97) as f32) / 97.0
}

pub fn train(steps: usize, dim: usize, rows: usize) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let f = ctx.load_module(compile_ptx(STEP_SRC)?)?.load_function("linear_step")?;
    let mut batches = [
        ManagedBatch::new(dim * rows).map_err(|e| format!("{e:?}"))?,
        ManagedBatch::new(dim * rows).map_err(|e| format!("{e:?}"))?,
    ];
    for (i, v) in batches[0].as_mut_slice().iter_mut().enumerate() {
        *v = synth_row(0, i / dim, i % dim);
    }
    let mut w = stream.alloc_zeros::<f32>(dim)?;
    let mut readback = unsafe { ctx.alloc_pinned_with_flags::<f32>(dim, 0)? };

    let (dim32, rows32) = (dim as u32, rows as u32);
    for step in 0..steps {
        let [a, b] = &mut batches;
        let (current, next) = if step % 2 == 0 { (a, b) } else { (b, a) };
        let batch_ptr = current.ptr as u64;
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&mut w)
                .arg(&batch_ptr)
                .arg(&dim32)
                .arg(&rows32)
                .arg(&0.05f32)
                .launch(LaunchConfig::for_num_elems(dim32))?;
        }
        std::thread::scope(|s| {
            s.spawn(|| {
                for (i, v) in next.as_mut_slice().iter_mut().enumerate() {
                    *v = synth_row(step + 1, i / dim, i % dim); // EXPECT: managed_concurrent_access
                }
            });
        });
        stream.synchronize()?;
    }
    stream.memcpy_dtoh(&w, &mut readback)?;
    stream.synchronize()?;
    Ok(readback.as_slice()?.to_vec())
}

pub fn run() -> Result<(), Box<dyn std::error::Error>> {
    let w = train(20, 1024, 16)?;
    println!("w[0..4] = {:?}", &w[..4]);
    Ok(())
}
