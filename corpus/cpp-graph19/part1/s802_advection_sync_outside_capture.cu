// 1-D linear advection with a second-order upwind (Beam-Warming) scheme on a periodic domain.
// The initial profile is uploaded before the step graph is recorded, the recording is
// flushed with a device synchronize once it is over, and the run is monitored every
// `check_every` replays from outside the graph.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK_CUDA(expr)                                                                \
    do {                                                                                \
        cudaError_t status_ = (expr);                                                   \
        if (status_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n", cudaGetErrorString(status_), \
                         __FILE__, __LINE__);                                           \
            std::abort();                                                               \
        }                                                                               \
    } while (0)

__global__ void beam_warming(const float* __restrict__ q, float* __restrict__ q_next, int n,
                             float c) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int im1 = (i - 1 + n) % n;
    int im2 = (i - 2 + n) % n;
    q_next[i] = q[i] - 0.5f * c * (3.0f * q[i] - 4.0f * q[im1] + q[im2]) +
                0.5f * c * c * (q[i] - 2.0f * q[im1] + q[im2]);
}

__global__ void total_mass(const float* __restrict__ q, int n, float* mass) {
    __shared__ float partial[256];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    partial[threadIdx.x] = i < n ? q[i] : 0.0f;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(mass, partial[0]);
}

int main() {
    const int n = 1 << 20;
    const float courant = 0.8f;
    const int replays = 5000;
    const int check_every = 500;
    const size_t bytes = n * sizeof(float);

    std::vector<float> profile(n);
    for (int i = 0; i < n; ++i) {
        float x = (i + 0.5f) / n;
        profile[i] = std::exp(-200.0f * (x - 0.3f) * (x - 0.3f));
    }

    cudaStream_t stream;
    CHECK_CUDA(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float* d_q = nullptr;
    float* d_tmp = nullptr;
    float* d_mass = nullptr;
    float* h_mass = nullptr;
    CHECK_CUDA(cudaMalloc(&d_q, bytes));
    CHECK_CUDA(cudaMalloc(&d_tmp, bytes));
    CHECK_CUDA(cudaMalloc(&d_mass, sizeof(float)));
    CHECK_CUDA(cudaMallocHost(&h_mass, sizeof(float)));

    // Blocking upload before the recording starts: not part of the graph.
    CHECK_CUDA(cudaMemcpy(d_q, profile.data(), bytes, cudaMemcpyHostToDevice));

    const int threads = 256;
    const int blocks = (n + threads - 1) / threads;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    beam_warming<<<blocks, threads, 0, stream>>>(d_q, d_tmp, n, courant);
    beam_warming<<<blocks, threads, 0, stream>>>(d_tmp, d_q, n, courant);
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    // The recording is over: flush the upload above and any launch error of the capture.
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));

    for (int r = 1; r <= replays; ++r) {
        CHECK_CUDA(cudaGraphLaunch(exec, stream));
        if (r % check_every == 0) {
            CHECK_CUDA(cudaMemsetAsync(d_mass, 0, sizeof(float), stream));
            total_mass<<<blocks, threads, 0, stream>>>(d_q, n, d_mass);
            CHECK_CUDA(cudaGetLastError());
            CHECK_CUDA(cudaMemcpyAsync(h_mass, d_mass, sizeof(float), cudaMemcpyDeviceToHost,
                                       stream));
            CHECK_CUDA(cudaStreamSynchronize(stream));
            std::printf("replay %5d: mass %.6f\n", r, *h_mass / n);
        }
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));

    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
    CHECK_CUDA(cudaFreeHost(h_mass));
    CHECK_CUDA(cudaFree(d_mass));
    CHECK_CUDA(cudaFree(d_tmp));
    CHECK_CUDA(cudaFree(d_q));
    CHECK_CUDA(cudaStreamDestroy(stream));
    return 0;
}
