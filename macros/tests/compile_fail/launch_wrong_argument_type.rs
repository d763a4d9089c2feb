use cuda_lint_runtime::{DeviceBuffer, LaunchConfig, Result, Stream};

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, const float* in, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * in[i];
}
"#)]
mod k {}

unsafe fn wrong_element_type(
    k: &k::Kernels,
    s: &Stream,
    x: &mut DeviceBuffer<i32>,
    input: &DeviceBuffer<f32>,
) -> Result<()> {
    unsafe { k.scale(s, LaunchConfig::for_num_elems(4), x, input, 2.0, 4) }
}

unsafe fn wrong_scalar_type(
    k: &k::Kernels,
    s: &Stream,
    x: &mut DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
) -> Result<()> {
    unsafe { k.scale(s, LaunchConfig::for_num_elems(4), x, input, 2.0f64, 4) }
}

unsafe fn written_buffer_by_shared_reference(
    k: &k::Kernels,
    s: &Stream,
    x: &DeviceBuffer<f32>,
    input: &DeviceBuffer<f32>,
) -> Result<()> {
    unsafe { k.scale(s, LaunchConfig::for_num_elems(4), x, input, 2.0, 4) }
}

fn launch_is_unsafe(k: &k::Kernels, s: &Stream, x: &mut DeviceBuffer<f32>, input: &DeviceBuffer<f32>) -> Result<()> {
    k.scale(s, LaunchConfig::for_num_elems(4), x, input, 2.0, 4)
}

fn main() {}
