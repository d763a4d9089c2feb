// case: A two-pass sum reduction's init function declares a local d_partials that shadows the file-scope workspace, so the local allocation is lost when init returns (device_memory_leak) and the global stays null; the first-pass kernel writes through it and the partial sums are copied out of it (unallocated_pointer at the launch and at the copy).
// expect: unallocated_pointer=2, device_memory_leak=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kThreads = 256;

static float* d_partials;  // one partial sum per block, sized by init_reducer
static int g_max_blocks;

static void init_reducer(int max_blocks) {
    g_max_blocks = max_blocks;
    float* d_partials = nullptr;
    CUDA_CHECK(cudaMalloc(&d_partials, max_blocks * sizeof(float)));  // EXPECT: device_memory_leak
}

static void shutdown_reducer() {
    CUDA_CHECK(cudaFree(d_partials));
}

__global__ void block_sum(const float* __restrict__ in, float* __restrict__ partials, size_t n) {
    __shared__ float s[kThreads];
    float acc = 0.0f;
    for (size_t i = blockIdx.x * size_t(kThreads) + threadIdx.x; i < n; i += size_t(gridDim.x) * kThreads)
        acc += in[i];
    s[threadIdx.x] = acc;
    __syncthreads();
    for (int stride = kThreads / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) s[threadIdx.x] += s[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) partials[blockIdx.x] = s[0];
}

static double reduce_sum(const float* d_in, size_t n) {
    int blocks = int((n + kThreads - 1) / kThreads);
    if (blocks > g_max_blocks) blocks = g_max_blocks;
    block_sum<<<blocks, kThreads>>>(d_in, d_partials, n);  // EXPECT: unallocated_pointer
    CUDA_CHECK(cudaGetLastError());
    std::vector<float> partials(blocks);
    CUDA_CHECK(cudaMemcpy(partials.data(), d_partials, blocks * sizeof(float), cudaMemcpyDeviceToHost));  // EXPECT: unallocated_pointer
    double total = 0.0;
    for (float p : partials) total += p;
    return total;
}

int main() {
    const size_t n = size_t(1) << 26;
    std::vector<float> h(n);
    for (size_t i = 0; i < n; ++i) h[i] = (i % 3 == 0) ? 1.0f : 0.5f;

    float* d_in = nullptr;
    CUDA_CHECK(cudaMalloc(&d_in, n * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice));

    init_reducer(1024);
    double s = reduce_sum(d_in, n);
    std::printf("sum = %.1f\n", s);

    shutdown_reducer();
    CUDA_CHECK(cudaFree(d_in));
    return 0;
}
