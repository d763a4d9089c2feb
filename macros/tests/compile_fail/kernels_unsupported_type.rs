#[cuda_lint::kernels(source = r#"
extern "C" __global__ void scale(float4* v, float a, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) { v[i].x *= a; }
}
"#)]
mod vectors {}

#[cuda_lint::kernels(source = "extern \"C\" __global__ void flag(bool* out, bool value) { *out = value; }")]
mod flags {}

#[cuda_lint::kernels(source = "extern \"C\" __global__ void r(float& x) { x = 1.0f; }")]
mod references {}

#[cuda_lint::kernels(source = "extern \"C\" __global__ void t(Pair<int> p, float** pp) { }")]
mod templates {}

fn main() {}
