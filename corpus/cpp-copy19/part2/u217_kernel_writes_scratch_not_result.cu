// case: a softmax launcher gets its output from the wrong field of a buffers struct (scratch instead of probs), so the host copies back the never-written d_probs and the scratch the kernel filled is freed unread.
// expect: uninitialized_device_read=1, unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(s) do { cudaError_t r = (s); if (r != cudaSuccess) { \
    std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(r)); std::exit(3); } } while (0)

#define BATCH 64
#define CLASSES 1000

struct SoftmaxBuffers {
    float* d_logits;
    float* d_probs;
    float* d_scratch;
};

__global__ void softmax_rows(const float* logits, float* probs, int cols)
{
    const float* in = logits + blockIdx.x * cols;
    float* out = probs + blockIdx.x * cols;
    if (threadIdx.x != 0) return;
    float m = in[0];
    for (int c = 1; c < cols; ++c) m = fmaxf(m, in[c]);
    float s = 0.f;
    for (int c = 0; c < cols; ++c) { out[c] = __expf(in[c] - m); s += out[c]; }
    for (int c = 0; c < cols; ++c) out[c] /= s;
}

static void alloc_buffers(SoftmaxBuffers& b)
{
    CUDA_CHECK(cudaMalloc(&b.d_logits, BATCH * CLASSES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_probs, BATCH * CLASSES * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&b.d_scratch, BATCH * CLASSES * sizeof(float)));
}

static void free_buffers(SoftmaxBuffers& b)
{
    CUDA_CHECK(cudaFree(b.d_logits));
    CUDA_CHECK(cudaFree(b.d_probs));
    CUDA_CHECK(cudaFree(b.d_scratch)); // EXPECT: unread_kernel_output
}

int main()
{
    std::vector<float> logits(BATCH * CLASSES), probs(BATCH * CLASSES);
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = float(i % CLASSES) * 0.001f;

    SoftmaxBuffers b;
    alloc_buffers(b);
    CUDA_CHECK(cudaMemcpy(b.d_logits, logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice));

    softmax_rows<<<BATCH, 32>>>(b.d_logits, b.d_scratch, CLASSES);
    CUDA_CHECK(cudaGetLastError());

    CUDA_CHECK(cudaMemcpy(probs.data(), b.d_probs, probs.size() * sizeof(float), cudaMemcpyDeviceToHost)); // EXPECT: uninitialized_device_read
    std::printf("p[0][999] = %f\n", probs[CLASSES - 1]);

    free_buffers(b);
    return 0;
}
