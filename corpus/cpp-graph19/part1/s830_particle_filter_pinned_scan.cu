// Monte Carlo localisation of a mobile robot: every laser scan is written into page-locked
// host memory (cudaHostAlloc), and the recorded graph uploads it, weights every particle
// against a precomputed distance map and brings the weights back for resampling.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "mcl: %s (%s:%d)\n", cudaGetErrorString(e_),             \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kBeams = 1080;
constexpr int kMap = 1024;       // distance map cells per side
constexpr float kCell = 0.05f;   // metres per cell

__global__ void weigh_particles(const float4* __restrict__ particles, const float* __restrict__ ranges,
                                const float* __restrict__ dist_map, float* __restrict__ weights,
                                int n) {
    int p = blockIdx.x * blockDim.x + threadIdx.x;
    if (p >= n) return;
    float4 pose = particles[p];  // x, y, theta, unused
    float log_w = 0.0f;
    for (int b = 0; b < kBeams; b += 8) {
        float angle = pose.z + (b - kBeams / 2) * (4.71238898f / kBeams);
        float ex = pose.x + ranges[b] * cosf(angle), ey = pose.y + ranges[b] * sinf(angle);
        int cx = static_cast<int>(ex / kCell), cy = static_cast<int>(ey / kCell);
        float d = (cx < 0 || cy < 0 || cx >= kMap || cy >= kMap) ? 1.0f : dist_map[cy * kMap + cx];
        log_w -= d * d / (2.0f * 0.04f);
    }
    weights[p] = __expf(log_w);
}

int main(int argc, char** argv) {
    const int particles = argc > 1 ? std::atoi(argv[1]) : 100000;
    const size_t range_bytes = kBeams * sizeof(float);
    const size_t weight_bytes = particles * sizeof(float);

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));

    std::vector<float> dist_map(static_cast<size_t>(kMap) * kMap);
    for (int y = 0; y < kMap; ++y)
        for (int x = 0; x < kMap; ++x)
            dist_map[y * kMap + x] = kCell * std::fmin(std::fmin(x, kMap - 1 - x), std::fmin(y, kMap - 1 - y));
    std::vector<float4> init(particles);
    for (int p = 0; p < particles; ++p)
        init[p] = make_float4(10.0f + 0.001f * (p % 997), 20.0f + 0.001f * (p % 991), 0.0001f * p, 0.0f);

    float4* d_particles;
    float *d_map, *d_ranges, *d_weights, *h_ranges, *h_weights;
    CUDA_CHECK(cudaMalloc(&d_particles, particles * sizeof(float4)));
    CUDA_CHECK(cudaMalloc(&d_map, dist_map.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_ranges, range_bytes));
    CUDA_CHECK(cudaMalloc(&d_weights, weight_bytes));
    CUDA_CHECK(cudaMemcpy(d_particles, init.data(), particles * sizeof(float4), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_map, dist_map.data(), dist_map.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaHostAlloc(&h_ranges, range_bytes, cudaHostAllocPortable));
    CUDA_CHECK(cudaHostAlloc(&h_weights, weight_bytes, cudaHostAllocPortable));

    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_ranges, h_ranges, range_bytes, cudaMemcpyHostToDevice, stream));
    weigh_particles<<<(particles + 255) / 256, 256, 0, stream>>>(d_particles, d_ranges, d_map, d_weights, particles);
    CUDA_CHECK(cudaMemcpyAsync(h_weights, d_weights, weight_bytes, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    for (int scan = 0; scan < 300; ++scan) {
        for (int b = 0; b < kBeams; ++b) h_ranges[b] = 2.0f + 3.0f * std::fabs(std::sin(0.01f * b + 0.05f * scan));
        CUDA_CHECK(cudaGraphLaunch(exec, stream));
        CUDA_CHECK(cudaStreamSynchronize(stream));
        double total = 0.0;
        int best = 0;
        for (int p = 0; p < particles; ++p) {
            total += h_weights[p];
            best = h_weights[p] > h_weights[best] ? p : best;
        }
        if (scan % 100 == 0) std::printf("scan %d: best particle %d, total weight %.3e\n", scan, best, total);
    }

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFreeHost(h_weights));
    CUDA_CHECK(cudaFreeHost(h_ranges));
    CUDA_CHECK(cudaFree(d_weights));
    CUDA_CHECK(cudaFree(d_ranges));
    CUDA_CHECK(cudaFree(d_map));
    CUDA_CHECK(cudaFree(d_particles));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
