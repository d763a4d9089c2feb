// Barotropic ocean box model with a wind-driven spin-up and a free run. The spin-up step
// graph reads the wind-stress field; once spin-up is over that graph is destroyed, the field
// is released, and a second graph without the wind term is recorded for the free run.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define OCEAN_CUDA(call)                                                                 \
    do {                                                                                 \
        cudaError_t err_ = (call);                                                       \
        if (err_ != cudaSuccess) {                                                       \
            std::fprintf(stderr, "ocean: %s failed (%s) at %s:%d\n", #call,              \
                         cudaGetErrorString(err_), __FILE__, __LINE__);                  \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

__global__ void viscous_step(const float* __restrict__ psi, float* __restrict__ out, int nx,
                             int ny, float nu_dt, float drag_dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int j = blockIdx.y * blockDim.y + threadIdx.y;
    if (i >= nx || j >= ny) return;
    int c = j * nx + i;
    if (i == 0 || j == 0 || i == nx - 1 || j == ny - 1) {
        out[c] = 0.0f;
        return;
    }
    float lap = psi[c - 1] + psi[c + 1] + psi[c - nx] + psi[c + nx] - 4.0f * psi[c];
    out[c] = psi[c] + nu_dt * lap - drag_dt * psi[c];
}

__global__ void add_wind(float* __restrict__ psi, const float* __restrict__ curl, float scale,
                         int cells) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells) psi[c] += scale * curl[c];
}

__global__ void copy_field(const float* __restrict__ src, float* __restrict__ dst, int cells) {
    int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c < cells) dst[c] = src[c];
}

class BoxModel {
public:
    BoxModel(int nx, int ny) : nx_(nx), ny_(ny), cells_(nx * ny) {
        OCEAN_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        OCEAN_CUDA(cudaMalloc(&psi_, cells_ * sizeof(float)));
        OCEAN_CUDA(cudaMalloc(&psi_next_, cells_ * sizeof(float)));
        OCEAN_CUDA(cudaMemsetAsync(psi_, 0, cells_ * sizeof(float), stream_));
    }

    ~BoxModel() {
        cudaStreamSynchronize(stream_);
        if (exec_) cudaGraphExecDestroy(exec_);
        cudaFree(psi_next_);
        cudaFree(psi_);
        cudaStreamDestroy(stream_);
    }

    // curl == nullptr records the unforced step.
    void record(const float* curl) {
        if (exec_) {
            OCEAN_CUDA(cudaGraphExecDestroy(exec_));
            exec_ = nullptr;
        }
        dim3 block(32, 8), grid((nx_ + 31) / 32, (ny_ + 7) / 8);
        const int blocks = (cells_ + 255) / 256;
        cudaGraph_t graph;
        OCEAN_CUDA(cudaStreamBeginCapture(stream_, cudaStreamCaptureModeGlobal));
        viscous_step<<<grid, block, 0, stream_>>>(psi_, psi_next_, nx_, ny_, 0.05f, 1.0e-4f);
        if (curl != nullptr) add_wind<<<blocks, 256, 0, stream_>>>(psi_next_, curl, 1.0f, cells_);
        copy_field<<<blocks, 256, 0, stream_>>>(psi_next_, psi_, cells_);
        OCEAN_CUDA(cudaStreamEndCapture(stream_, &graph));
        OCEAN_CUDA(cudaGraphInstantiate(&exec_, graph, 0));
        OCEAN_CUDA(cudaGraphDestroy(graph));
    }

    void run(int steps) {
        for (int s = 0; s < steps; ++s) OCEAN_CUDA(cudaGraphLaunch(exec_, stream_));
        OCEAN_CUDA(cudaStreamSynchronize(stream_));
    }

    float max_abs() {
        std::vector<float> host(cells_);
        OCEAN_CUDA(cudaMemcpy(host.data(), psi_, cells_ * sizeof(float), cudaMemcpyDeviceToHost));
        float m = 0.0f;
        for (float v : host) m = std::fmax(m, std::fabs(v));
        return m;
    }

    int cells() const { return cells_; }

private:
    int nx_, ny_, cells_;
    cudaStream_t stream_ = nullptr;
    cudaGraphExec_t exec_ = nullptr;
    float* psi_ = nullptr;
    float* psi_next_ = nullptr;
};

int main() {
    BoxModel model(512, 512);
    const int n = model.cells();

    std::vector<float> curl(n);
    for (int c = 0; c < n; ++c) curl[c] = -1.0e-4f * std::sin(3.14159265f * (c / 512) / 511.0f);
    float* d_curl;
    OCEAN_CUDA(cudaMalloc(&d_curl, n * sizeof(float)));
    OCEAN_CUDA(cudaMemcpy(d_curl, curl.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    OCEAN_CUDA(cudaDeviceSynchronize());

    model.record(d_curl);
    model.run(20000);  // ends with a stream synchronize
    std::printf("after spin-up: %.6e\n", model.max_abs());

    model.record(nullptr);  // destroys the forced graph, records the free-running step
    OCEAN_CUDA(cudaFree(d_curl));
    model.run(50000);
    std::printf("after free run: %.6e\n", model.max_abs());
    return 0;
}
