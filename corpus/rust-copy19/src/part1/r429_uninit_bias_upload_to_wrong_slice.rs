//! case: cudarc: weights and bias are allocated with unsafe alloc, but a copy-paste sends the bias upload into d_weights as well, so d_bias is never written when the kernel reads it (read-only parameter)
//! expect: uninitialized_device_read=1
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;

const IN: usize = 16;
const OUT: usize = 8;

const AFFINE_SRC: &str = r#"
extern "C" __global__ void affine(const float* w, const float* b, const float* x, float* y, int in, int out) {
    int j = blockIdx.x * blockDim.x + threadIdx.x;
    if (j < out) {
        float acc = b[j];
        for (int k = 0; k < in; ++k) acc += w[j * in + k] * x[k];
        y[j] = acc;
    }
}
"#;

pub fn affine(w: &[f32; IN * OUT], bias: &[f32; OUT], x: &[f32; IN]) -> Result<Vec<f32>, Box<dyn std::error::Error>> {
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let f = ctx.load_module(compile_ptx(AFFINE_SRC)?)?.load_function("affine")?;

    let mut d_weights = unsafe { stream.alloc::<f32>(IN * OUT) }?;
    let d_bias = unsafe { stream.alloc::<f32>(OUT) }?;
    stream.memcpy_htod(w, &mut d_weights)?;
    stream.memcpy_htod(bias, &mut d_weights)?; // meant: &mut d_bias
    let d_x = stream.clone_htod(x)?;
    let mut d_y = stream.alloc_zeros::<f32>(OUT)?;
    let (n_in, n_out) = (IN as i32, OUT as i32);
    let mut b = stream.launch_builder(&f);
    b.arg(&d_weights).arg(&d_bias).arg(&d_x).arg(&mut d_y).arg(&n_in).arg(&n_out);
    unsafe { b.launch(LaunchConfig::for_num_elems(OUT as u32)) }?; // EXPECT: uninitialized_device_read
    let y = stream.clone_dtoh(&d_y)?;
    stream.synchronize()?;
    Ok(y)
}
