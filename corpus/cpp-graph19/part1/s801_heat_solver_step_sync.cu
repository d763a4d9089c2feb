// Explicit 2-D heat-equation solver. One CUDA graph replays a full time step as two half
// steps (u -> v, then v -> u), so the ping-pong buffers end where they started.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                            \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,      \
                         #call, cudaGetErrorString(err_));                          \
            std::exit(EXIT_FAILURE);                                                \
        }                                                                           \
    } while (0)

struct Grid {
    int nx;
    int ny;
    float alpha;  // kappa * dt / dx^2, must stay below 0.25 for stability
    float* u;
    float* v;
};

__global__ void diffuse(const float* __restrict__ in, float* __restrict__ out, int nx, int ny,
                        float alpha) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i <= 0 || j <= 0 || i >= nx - 1 || j >= ny - 1) return;
    int c = j * nx + i;
    out[c] = in[c] + alpha * (in[c - 1] + in[c + 1] + in[c - nx] + in[c + nx] - 4.0f * in[c]);
}

__global__ void clamp_boundary(float* out, int nx, int ny, float wall) {
    int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < nx) {
        out[k] = wall;
        out[(ny - 1) * nx + k] = wall;
    }
    if (k < ny) {
        out[k * nx] = wall;
        out[k * nx + nx - 1] = wall;
    }
}

__global__ void init_hot_spot(float* u, int nx, int ny, float peak) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    float dx = (i - nx / 2) / (float)nx;
    float dy = (j - ny / 2) / (float)ny;
    u[j * nx + i] = (dx * dx + dy * dy < 0.01f) ? peak : 0.0f;
}

static void half_step(const Grid& g, const float* in, float* out, cudaStream_t stream) {
    dim3 block(16, 16);
    dim3 grid((g.nx + block.x - 1) / block.x, (g.ny + block.y - 1) / block.y);
    diffuse<<<grid, block, 0, stream>>>(in, out, g.nx, g.ny, g.alpha);
    CUDA_CHECK(cudaGetLastError());
    int edge = g.nx > g.ny ? g.nx : g.ny;
    clamp_boundary<<<(edge + 255) / 256, 256, 0, stream>>>(out, g.nx, g.ny, 0.0f);
    CUDA_CHECK(cudaGetLastError());
    // Surface a faulting kernel at the step that caused it, not thousands of steps later.
    CUDA_CHECK(cudaStreamSynchronize(stream));  // EXPECT: uncapturable_call
}

int main(int argc, char** argv) {
    const int steps = argc > 1 ? std::atoi(argv[1]) : 2000;
    Grid g{1024, 1024, 0.2f, nullptr, nullptr};
    const size_t cells = static_cast<size_t>(g.nx) * g.ny;
    const size_t bytes = cells * sizeof(float);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaMalloc(&g.u, bytes));
    CUDA_CHECK(cudaMalloc(&g.v, bytes));

    dim3 block(16, 16);
    dim3 grid((g.nx + 15) / 16, (g.ny + 15) / 16);
    init_hot_spot<<<grid, block, 0, stream>>>(g.u, g.nx, g.ny, 100.0f);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemsetAsync(g.v, 0, bytes, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // Record one full step (two half steps) and replay it.
    cudaGraph_t graph;
    cudaGraphExec_t step_exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    half_step(g, g.u, g.v, stream);
    half_step(g, g.v, g.u, stream);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&step_exec, graph, 0));

    for (int s = 0; s < steps; ++s) {
        CUDA_CHECK(cudaGraphLaunch(step_exec, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<float> field(cells);
    CUDA_CHECK(cudaMemcpy(field.data(), g.u, bytes, cudaMemcpyDeviceToHost));
    double heat = 0.0;
    for (float t : field) heat += t;
    std::printf("after %d steps: total heat %.3f, centre %.4f\n", steps, heat,
                field[(g.ny / 2) * g.nx + g.nx / 2]);

    CUDA_CHECK(cudaGraphExecDestroy(step_exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(g.u));
    CUDA_CHECK(cudaFree(g.v));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
