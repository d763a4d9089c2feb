#[cuda_lint::kernels]
mod no_source {}

#[cuda_lint::kernels(path = "k.cu")]
mod unknown_key {}

#[cuda_lint::kernels(file = K_CU)]
mod not_a_literal {}

#[cuda_lint::kernels(source = "extern \"C\" __global__ void k() {}", file = "k.cu")]
mod both {}

#[cuda_lint::kernels(source = "extern \"C\" __global__ void k() {}")]
fn not_a_module() {}

fn main() {}
