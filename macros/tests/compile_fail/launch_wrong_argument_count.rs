use cuda_lint_runtime::{DeviceBuffer, LaunchConfig, Result, Stream};

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
}
"#)]
mod k {}

unsafe fn too_few(k: &k::Kernels, s: &Stream, x: &mut DeviceBuffer<f32>) -> Result<()> {
    unsafe { k.scale(s, LaunchConfig::for_num_elems(4), x, 2.0) }
}

unsafe fn too_many(k: &k::Kernels, s: &Stream, x: &mut DeviceBuffer<f32>) -> Result<()> {
    unsafe { k.scale(s, LaunchConfig::for_num_elems(4), x, 2.0, 4, 5) }
}

fn main() {}
