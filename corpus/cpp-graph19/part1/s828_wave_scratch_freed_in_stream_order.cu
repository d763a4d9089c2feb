// 2-D acoustic wave propagation (leapfrog in time, 5-point Laplacian) for a seismic survey
// preview. One step is recorded on the compute stream and replayed; the Laplacian scratch is
// released with a stream-ordered free on that same stream once the last replay is enqueued,
// so the free happens after the replays finish, and the wavefield is brought back after it.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "wave: %s (%s:%d)\n", cudaGetErrorString(e_),            \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

struct Field {
    int nx, ny;
    float* prev;
    float* curr;
    float* lap;
};

__global__ void laplacian(const float* __restrict__ p, float* __restrict__ lap, int nx, int ny) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        lap[c] = 0.0f;
        return;
    }
    lap[c] = p[c - 1] + p[c + 1] + p[c - nx] + p[c + nx] - 4.0f * p[c];
}

// prev <- 2 curr - prev + c^2 dt^2/dx^2 lap, then the roles of prev and curr swap by a copy.
__global__ void leapfrog(float* __restrict__ prev, float* __restrict__ curr,
                         const float* __restrict__ lap, int cells, float courant2) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= cells) return;
    float next = 2.0f * curr[c] - prev[c] + courant2 * lap[c];
    prev[c] = curr[c];
    curr[c] = next;
}

__global__ void ricker_source(float* curr, int nx, int ny, float amplitude) {
    int i = blockIdx.x * blockDim.x + threadIdx.x, j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    float dx = (i - nx / 2) * 0.05f, dy = (j - ny / 4) * 0.05f, r2 = dx * dx + dy * dy;
    curr[j * nx + i] = amplitude * (1.0f - 2.0f * r2) * __expf(-r2);
}

int main() {
    Field f{2048, 2048, nullptr, nullptr, nullptr};
    const int cells = f.nx * f.ny;
    const size_t bytes = cells * sizeof(float);
    const int steps = 2500;

    cudaStream_t compute;
    CUDA_CHECK(cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking));
    float* h_snapshot;
    CUDA_CHECK(cudaMallocHost(&h_snapshot, bytes));
    CUDA_CHECK(cudaMallocAsync(&f.prev, bytes, compute));
    CUDA_CHECK(cudaMallocAsync(&f.curr, bytes, compute));
    CUDA_CHECK(cudaMallocAsync(&f.lap, bytes, compute));
    dim3 block(32, 8), grid((f.nx + 31) / 32, (f.ny + 7) / 8);
    CUDA_CHECK(cudaMemsetAsync(f.prev, 0, bytes, compute));
    ricker_source<<<grid, block, 0, compute>>>(f.curr, f.nx, f.ny, 1.0f);
    CUDA_CHECK(cudaGetLastError());

    cudaGraph_t graph;
    cudaGraphExec_t step;
    CUDA_CHECK(cudaStreamBeginCapture(compute, cudaStreamCaptureModeGlobal));
    laplacian<<<grid, block, 0, compute>>>(f.curr, f.lap, f.nx, f.ny);
    leapfrog<<<(cells + 255) / 256, 256, 0, compute>>>(f.prev, f.curr, f.lap, cells, 0.25f);
    CUDA_CHECK(cudaStreamEndCapture(compute, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&step, graph, 0));

    for (int s = 0; s < steps; ++s) CUDA_CHECK(cudaGraphLaunch(step, compute));
    CUDA_CHECK(cudaFreeAsync(f.lap, compute));  // after the last replay, in stream order
    f.lap = nullptr;
    CUDA_CHECK(cudaMemcpyAsync(h_snapshot, f.curr, bytes, cudaMemcpyDeviceToHost, compute));
    CUDA_CHECK(cudaStreamSynchronize(compute));

    double energy = 0.0;
    for (int c = 0; c < cells; ++c) energy += h_snapshot[c] * h_snapshot[c];
    std::printf("wavefield energy after %d steps: %.4e\n", steps, energy);

    CUDA_CHECK(cudaGraphExecDestroy(step));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeAsync(f.curr, compute));
    CUDA_CHECK(cudaFreeAsync(f.prev, compute));
    CUDA_CHECK(cudaStreamSynchronize(compute));
    CUDA_CHECK(cudaFreeHost(h_snapshot));
    CUDA_CHECK(cudaStreamDestroy(compute));
    return 0;
}
