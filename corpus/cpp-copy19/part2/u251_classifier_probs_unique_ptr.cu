// case: a classifier head keeps its buffers in unique_ptrs with a cudaFree deleter; the softmax kernel writes the probabilities, but the program ranks classes from the host logits and the probabilities are released unread.
// expect: unread_kernel_output=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <vector>
#include <algorithm>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s\n", cudaGetErrorString(e)); std::abort(); } } while (0)

struct DeviceDeleter {
    void operator()(float* p) const noexcept {
        cudaFree(p); // EXPECT: unread_kernel_output
    }
};
using DevicePtr = std::unique_ptr<float, DeviceDeleter>;

static DevicePtr device_alloc(size_t n)
{
    float* raw = nullptr;
    CUDA_CHECK(cudaMalloc(&raw, n * sizeof(float)));
    return DevicePtr(raw);
}

__global__ void softmax_1d(const float* logits, float* probs, int n)
{
    __shared__ float s_max, s_sum;
    if (threadIdx.x == 0) {
        float m = logits[0];
        for (int i = 1; i < n; ++i) m = fmaxf(m, logits[i]);
        float s = 0.f;
        for (int i = 0; i < n; ++i) s += __expf(logits[i] - m);
        s_max = m;
        s_sum = s;
    }
    __syncthreads();
    for (int i = threadIdx.x; i < n; i += blockDim.x)
        probs[i] = __expf(logits[i] - s_max) / s_sum;
}

class ClassifierHead {
public:
    explicit ClassifierHead(int classes)
        : classes_(classes), logits_(device_alloc(classes)), probs_(device_alloc(classes)) {}

    void run(const std::vector<float>& logits) {
        CUDA_CHECK(cudaMemcpy(logits_.get(), logits.data(), classes_ * sizeof(float), cudaMemcpyHostToDevice));
        softmax_1d<<<1, 256>>>(logits_.get(), probs_.get(), classes_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
    }

private:
    int classes_;
    DevicePtr logits_;
    DevicePtr probs_;
};

int main()
{
    const int classes = 1000;
    std::vector<float> logits(classes);
    for (int c = 0; c < classes; ++c) logits[c] = float((c * 37) % 101) / 10.f;

    {
        ClassifierHead head(classes);
        head.run(logits);
    }

    auto best = std::max_element(logits.begin(), logits.end()) - logits.begin();
    std::printf("top-1 class: %ld\n", static_cast<long>(best));
    return 0;
}
