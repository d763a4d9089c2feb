// Barotropic ocean box model, one explicit time step per graph replay. During spin-up a
// wind-stress field drives the basin; afterwards the amplitude is set to zero and the model
// runs freely. The forcing field is released once spin-up is over to give its memory back to
// the diagnostics that follow.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                            \
    do {                                                                            \
        cudaError_t err_ = (call);                                                  \
        if (err_ != cudaSuccess) {                                                  \
            std::fprintf(stderr, "ocean: %s:%d: %s\n", __FILE__, __LINE__,          \
                         cudaGetErrorString(err_));                                 \
            std::exit(EXIT_FAILURE);                                                \
        }                                                                           \
    } while (0)

struct Model {
    int nx, ny;
    float nu_dt;      // viscosity * dt / dx^2
    float drag_dt;    // bottom drag * dt
    float* psi;       // streamfunction
    float* psi_next;
    float* forcing;   // wind-stress curl
    float* amplitude; // device scalar multiplying the forcing
};

__global__ void viscous_step(const float* __restrict__ psi, float* __restrict__ out, int nx,
                             int ny, float nu_dt, float drag_dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        out[c] = 0.0f;  // no flow through the coast
        return;
    }
    float lap = psi[c - 1] + psi[c + 1] + psi[c - nx] + psi[c + nx] - 4.0f * psi[c];
    out[c] = psi[c] + nu_dt * lap - drag_dt * psi[c];
}

__global__ void apply_wind(float* __restrict__ psi, const float* __restrict__ forcing,
                           const float* __restrict__ amplitude, int cells) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells) psi[c] += *amplitude * forcing[c];
}

__global__ void copy_back(const float* __restrict__ src, float* __restrict__ dst, int cells) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells) dst[c] = src[c];
}

static cudaGraphExec_t record_step(const Model& m, cudaStream_t stream, cudaGraph_t* graph) {
    const int cells = m.nx * m.ny;
    dim3 block(32, 8), grid((m.nx + 31) / 32, (m.ny + 7) / 8);
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    viscous_step<<<grid, block, 0, stream>>>(m.psi, m.psi_next, m.nx, m.ny, m.nu_dt, m.drag_dt);
    apply_wind<<<(cells + 255) / 256, 256, 0, stream>>>(m.psi_next, m.forcing, m.amplitude, cells);
    copy_back<<<(cells + 255) / 256, 256, 0, stream>>>(m.psi_next, m.psi, cells);
    CUDA_CHECK(cudaStreamEndCapture(stream, graph));
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, *graph, 0));
    return exec;
}

int main() {
    Model m{512, 512, 0.05f, 1.0e-4f, nullptr, nullptr, nullptr, nullptr};
    const int cells = m.nx * m.ny;
    const size_t bytes = cells * sizeof(float);
    const int spinup_steps = 20000, free_steps = 50000;

    std::vector<float> curl(cells);
    for (int j = 0; j < m.ny; ++j)
        for (int i = 0; i < m.nx; ++i)
            curl[j * m.nx + i] = -1.0e-4f * std::sin(3.14159265f * j / (m.ny - 1));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));
    CUDA_CHECK(cudaMalloc(&m.psi, bytes));
    CUDA_CHECK(cudaMalloc(&m.psi_next, bytes));
    CUDA_CHECK(cudaMalloc(&m.forcing, bytes));
    CUDA_CHECK(cudaMalloc(&m.amplitude, sizeof(float)));
    const float full = 1.0f, none = 0.0f;
    CUDA_CHECK(cudaMemset(m.psi, 0, bytes));
    CUDA_CHECK(cudaMemcpy(m.forcing, curl.data(), bytes, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(m.amplitude, &full, sizeof(float), cudaMemcpyHostToDevice));

    cudaGraph_t graph;
    cudaGraphExec_t step = record_step(m, stream, &graph);

    for (int s = 0; s < spinup_steps; ++s) CUDA_CHECK(cudaGraphLaunch(step, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // Spin-up done: switch the wind off and give the forcing field back.
    CUDA_CHECK(cudaMemcpy(m.amplitude, &none, sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaFree(m.forcing));
    m.forcing = nullptr;

    for (int s = 0; s < free_steps; ++s) {
        CUDA_CHECK(cudaGraphLaunch(step, stream));  // EXPECT: graph_uses_freed_memory
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<float> psi(cells);
    CUDA_CHECK(cudaMemcpy(psi.data(), m.psi, bytes, cudaMemcpyDeviceToHost));
    float extreme = 0.0f;
    for (float v : psi) extreme = std::fabs(v) > std::fabs(extreme) ? v : extreme;
    std::printf("gyre strength after free run: %.6e\n", extreme);

    CUDA_CHECK(cudaGraphExecDestroy(step));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(m.amplitude));
    CUDA_CHECK(cudaFree(m.psi_next));
    CUDA_CHECK(cudaFree(m.psi));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
