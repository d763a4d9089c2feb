#[cuda_lint::kernels(file = "kernels/missing.cu")]
mod k {}

fn main() {}
