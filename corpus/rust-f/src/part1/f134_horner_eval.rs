//! case: a polynomial evaluator keeps inputs and outputs in cudarc `UnifiedSlice`s and uses only the default stream; a launch that takes a `UnifiedSlice` argument records that slice's event unconditionally, so `as_slice`/`as_mut_slice` wait for the kernel before the host touches either buffer, and no other kernel exists
//! expect: none

use std::error::Error;

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg, UnifiedSlice};
use cudarc::nvrtc::compile_ptx;

const HORNER_SRC: &str = r#"
extern "C" __global__ void horner(const float* x, float* y, const float* coeffs, unsigned int degree, unsigned int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float acc = coeffs[degree];
    for (int k = (int)degree - 1; k >= 0; --k) acc = acc * x[i] + coeffs[k];
    y[i] = acc;
}
"#;

pub struct PolyEval {
    x: UnifiedSlice<f32>,
    y: UnifiedSlice<f32>,
    coeffs: UnifiedSlice<f32>,
}

pub fn evaluate_rounds(rounds: usize, n: usize) -> Result<Vec<f32>, Box<dyn Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(HORNER_SRC)?)?.load_function("horner")?;
    let mut p = PolyEval {
        x: unsafe { ctx.alloc_unified::<f32>(n, true)? },
        y: unsafe { ctx.alloc_unified::<f32>(n, true)? },
        coeffs: unsafe { ctx.alloc_unified::<f32>(8, true)? },
    };
    p.coeffs.as_mut_slice()?.copy_from_slice(&[1.0, -0.5, 0.25, 0.0, 0.1, 0.0, 0.0, 0.01]);

    let (degree, len) = (7u32, n as u32);
    let mut maxima = Vec::with_capacity(rounds);
    for r in 0..rounds {
        let shift = r as f32 * 0.1;
        p.x.as_mut_slice()?.iter_mut().enumerate().for_each(|(i, v)| *v = shift + i as f32 / n as f32);
        unsafe {
            stream
                .launch_builder(&f)
                .arg(&p.x)
                .arg(&mut p.y)
                .arg(&p.coeffs)
                .arg(&degree)
                .arg(&len)
                .launch(LaunchConfig::for_num_elems(len))?;
        }
        maxima.push(p.y.as_slice()?.iter().copied().fold(f32::MIN, f32::max));
    }
    Ok(maxima)
}

pub fn run() -> Result<(), Box<dyn Error>> {
    println!("{:?}", evaluate_rounds(5, 1 << 16)?);
    Ok(())
}
