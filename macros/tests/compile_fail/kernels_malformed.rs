#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= a;
"#)]
mod no_closing_brace {}

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, float a = 2.0f, int n) { }
"#)]
mod default_argument {}

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, , int n) { }
"#)]
mod empty_parameter {}

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float* x, int n { }
"#)]
mod unclosed_parameter_list {}

#[cuda_lint::kernels(source = r#"
extern "C" __global__ void k(int* p) {}
extern "C" __global__ void k(int* p) {}
"#)]
mod defined_twice {}

#[cuda_lint::kernels(source = r#"extern "C" __global__ void load(int* p) {}"#)]
mod named_load {}

fn main() {}
