//! CUDA source of the stencil solver, kept apart from the host code.

/// One Jacobi sweep: each thread writes its cell through `grid`, and after the block barrier
/// reads its neighbours through `halo`, the second mapping of the same allocation.
pub const STENCIL_SRC: &str = r#"
extern "C" __global__ void jacobi_step(float* grid, const float* halo, const float* rhs, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) grid[i] = 0.5f * (grid[i] + rhs[i]);
    __syncthreads();
    if (i > 0 && i + 1 < n) {
        float left = halo[i - 1];
        float right = halo[i + 1];
        grid[i] = 0.25f * (left + 2.0f * grid[i] + right);
    }
}
"#;

pub const ENTRY: &str = "jacobi_step";
