// case: two-stage vision service: the decode stream normalizes the batch and records an event, the inference stream waits on it with cudaStreamWaitEvent, and the host reads the pinned scores only after synchronizing the inference stream
// expect: none
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void normalize_u8(const uint8_t* raw, float* tensor, int n, float mean, float inv_std) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) tensor[i] = (raw[i] - mean) * inv_std;
}

__global__ void global_avg_score(const float* tensor, int per_image, int images, float* scores) {
    int img = blockIdx.x;
    if (img >= images) return;
    float acc = 0.0f;
    for (int i = threadIdx.x; i < per_image; i += blockDim.x) acc += tensor[img * per_image + i];
    atomicAdd(&scores[img], acc / per_image);
}

struct Streams {
    cudaStream_t decode = nullptr;
    cudaStream_t infer = nullptr;
    cudaEvent_t decoded = nullptr;
};

int main() {
    const int images = 32, per_image = 224 * 224 * 3, n = images * per_image;
    Streams st;
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.decode, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&st.infer, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&st.decoded, cudaEventDisableTiming));

    uint8_t *h_raw = nullptr, *d_raw = nullptr;
    float *d_tensor = nullptr, *d_scores = nullptr, *h_scores = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&h_raw), n, cudaHostAllocPortable));
    CUDA_CHECK(cudaMallocHost(&h_scores, images * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_raw, n));
    CUDA_CHECK(cudaMalloc(&d_tensor, n * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_scores, images * sizeof(float)));
    for (int i = 0; i < n; ++i) h_raw[i] = static_cast<uint8_t>(i % 251);

    CUDA_CHECK(cudaMemcpyAsync(d_raw, h_raw, n, cudaMemcpyHostToDevice, st.decode));
    normalize_u8<<<(n + 255) / 256, 256, 0, st.decode>>>(d_raw, d_tensor, n, 127.5f, 1.0f / 64.0f);
    CUDA_CHECK(cudaEventRecord(st.decoded, st.decode));

    CUDA_CHECK(cudaStreamWaitEvent(st.infer, st.decoded, 0));
    CUDA_CHECK(cudaMemsetAsync(d_scores, 0, images * sizeof(float), st.infer));
    global_avg_score<<<images, 256, 0, st.infer>>>(d_tensor, per_image, images, d_scores);
    CUDA_CHECK(cudaMemcpyAsync(h_scores, d_scores, images * sizeof(float), cudaMemcpyDeviceToHost, st.infer));
    CUDA_CHECK(cudaStreamSynchronize(st.infer));

    for (int i = 0; i < 4; ++i) std::printf("image %d score %f\n", i, h_scores[i]);

    cudaFree(d_scores);
    cudaFree(d_tensor);
    cudaFree(d_raw);
    cudaFreeHost(h_scores);
    cudaFreeHost(h_raw);
    cudaEventDestroy(st.decoded);
    cudaStreamDestroy(st.infer);
    cudaStreamDestroy(st.decode);
    return 0;
}
