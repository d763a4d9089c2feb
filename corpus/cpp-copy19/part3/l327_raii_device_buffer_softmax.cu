// case: a row-wise softmax keeps its device memory in a move-only DeviceBuffer<T> whose destructor calls cudaFree, so the early return on a bad shape and the normal return both release it
// expect: none
#include <cfloat>
#include <cstdio>
#include <new>
#include <stdexcept>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t count) : count_(count) {
        if (cudaMalloc(&ptr_, count * sizeof(T)) != cudaSuccess)
            throw std::bad_alloc();
    }
    ~DeviceBuffer() { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
    DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(o.count_) {}

    T* get() const { return ptr_; }
    size_t size() const { return count_; }
    size_t bytes() const { return count_ * sizeof(T); }

    void upload(const std::vector<T>& h) {
        cudaMemcpy(ptr_, h.data(), bytes(), cudaMemcpyHostToDevice);
    }
    void download(std::vector<T>& h) const {
        h.resize(count_);
        cudaMemcpy(h.data(), ptr_, bytes(), cudaMemcpyDeviceToHost);
    }

private:
    T* ptr_ = nullptr;
    size_t count_;
};

__global__ void softmax_rows(const float* in, float* out, int cols) {
    const float* row_in = in + blockIdx.x * cols;
    float* row_out = out + blockIdx.x * cols;
    float m = -FLT_MAX;
    for (int c = 0; c < cols; ++c) m = fmaxf(m, row_in[c]);
    float s = 0.f;
    for (int c = 0; c < cols; ++c) s += __expf(row_in[c] - m);
    for (int c = threadIdx.x; c < cols; c += blockDim.x) row_out[c] = __expf(row_in[c] - m) / s;
}

bool softmax(const std::vector<float>& logits, int rows, int cols, std::vector<float>& probs) {
    DeviceBuffer<float> d_in(logits.size());
    DeviceBuffer<float> d_out(logits.size());
    if ((size_t)rows * cols != logits.size()) {
        fprintf(stderr, "softmax: shape %dx%d does not match %zu values\n", rows, cols,
                logits.size());
        return false;
    }
    d_in.upload(logits);
    softmax_rows<<<rows, 128>>>(d_in.get(), d_out.get(), cols);
    d_out.download(probs);
    return cudaGetLastError() == cudaSuccess;
}

int main() {
    const int rows = 4096, cols = 1000;
    std::vector<float> logits((size_t)rows * cols), probs;
    for (size_t i = 0; i < logits.size(); ++i) logits[i] = (float)(i % cols) * 0.01f;
    try {
        if (!softmax(logits, rows, cols, probs)) return 1;
    } catch (const std::bad_alloc&) {
        fprintf(stderr, "out of device memory\n");
        return 1;
    }
    float row0 = 0.f;
    for (int c = 0; c < cols; ++c) row0 += probs[c];
    printf("row 0 sums to %f\n", row0);
    return 0;
}
