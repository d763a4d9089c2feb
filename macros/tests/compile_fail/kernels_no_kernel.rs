#[cuda_lint::kernels(source = r#"
__device__ float twice(float x) { return 2.0f * x; }
"#)]
mod device_functions_only {}

fn main() {}
