// Finite-volume solver for the inviscid Burgers equation (Rusanov fluxes) with a copy
// stream and a compute stream. The working set comes from the stream-ordered pool on the copy
// stream; one time step (fluxes, then the conservative update) is recorded on the compute
// stream and replayed. When the run is over, the flux scratch is handed back to the pool on
// the copy stream, where it was allocated, while the final state is brought back.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "burgers: %s (%s:%d)\n", cudaGetErrorString(e_),         \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

__global__ void rusanov_flux(const float* __restrict__ u, float* __restrict__ flux, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // interface i+1/2
    if (i >= n) return;
    float ul = u[i], ur = u[(i + 1) % n];
    float a = fmaxf(fabsf(ul), fabsf(ur));
    flux[i] = 0.25f * (ul * ul + ur * ur) - 0.5f * a * (ur - ul);
}

__global__ void conservative_update(float* __restrict__ u, const float* __restrict__ flux, int n,
                                    float dt_dx) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    u[i] -= dt_dx * (flux[i] - flux[(i - 1 + n) % n]);
}

int main() {
    const int n = 1 << 22;
    const float dx = 1.0f / n, dt = 0.4f * dx;  // CFL 0.4 for |u| <= 1
    const int steps = 3000;
    const size_t bytes = n * sizeof(float);

    cudaStream_t copy, compute;
    CUDA_CHECK(cudaStreamCreateWithFlags(&copy, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));

    float *h_u, *d_u, *d_flux;
    CUDA_CHECK(cudaMallocHost(&h_u, bytes));
    for (int i = 0; i < n; ++i) h_u[i] = 0.5f + 0.5f * std::sin(6.2831853f * i / n);
    CUDA_CHECK(cudaMallocAsync(&d_u, bytes, copy));
    CUDA_CHECK(cudaMallocAsync(&d_flux, bytes, copy));
    CUDA_CHECK(cudaMemcpyAsync(d_u, h_u, bytes, cudaMemcpyHostToDevice, copy));
    CUDA_CHECK(cudaMemsetAsync(d_flux, 0, bytes, copy));
    CUDA_CHECK(cudaStreamSynchronize(copy));

    const int threads = 256, blocks = (n + threads - 1) / threads;
    cudaGraph_t graph;
    cudaGraphExec_t step;
    CUDA_CHECK(cudaStreamBeginCapture(compute, cudaStreamCaptureModeGlobal));
    rusanov_flux<<<blocks, threads, 0, compute>>>(d_u, d_flux, n);
    conservative_update<<<blocks, threads, 0, compute>>>(d_u, d_flux, n, dt / dx);
    CUDA_CHECK(cudaStreamEndCapture(compute, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&step, graph, 0));

    for (int s = 0; s < steps; ++s) CUDA_CHECK(cudaGraphLaunch(step, compute));

    // The fluxes are not part of the output: give them back while the state comes home.
    CUDA_CHECK(cudaFreeAsync(d_flux, copy));  // EXPECT: missing_sync
    CUDA_CHECK(cudaMemcpyAsync(h_u, d_u, bytes, cudaMemcpyDeviceToHost, compute));
    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaStreamSynchronize(copy));

    float umax = h_u[0], umin = h_u[0];
    for (int i = 1; i < n; ++i) {
        umax = std::fmax(umax, h_u[i]);
        umin = std::fmin(umin, h_u[i]);
    }
    std::printf("after %d steps: u in [%.4f, %.4f] (shock formed: %s)\n", steps, umin, umax,
                umax - umin > 0.9f ? "yes" : "no");

    CUDA_CHECK(cudaGraphExecDestroy(step));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeAsync(d_u, compute));
    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaFreeHost(h_u));
    CUDA_CHECK(cudaStreamDestroy(compute));
    CUDA_CHECK(cudaStreamDestroy(copy));
    return 0;
}
