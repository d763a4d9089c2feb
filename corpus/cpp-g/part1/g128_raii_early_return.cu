// case: RAII DeviceBuffer<T> wrapper with an early return when the input is empty; the kernel runs on the default stream and the blocking cudaMemcpy back into a std::vector completes before the host reads it, and each buffer is freed by its own destructor with cudaFree.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>
#include <cuda_runtime.h>

inline void throw_on_error(cudaError_t e, const char* what) {
    if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}
#define CUDA_THROW(x) throw_on_error((x), #x)

template <typename T>
class DeviceBuffer {
public:
    explicit DeviceBuffer(size_t n) : n_(n) { CUDA_THROW(cudaMalloc(&ptr_, n * sizeof(T))); }
    ~DeviceBuffer() { if (ptr_) cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    void upload(const std::vector<T>& h) {
        CUDA_THROW(cudaMemcpy(ptr_, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
    }
    void download(std::vector<T>& h) const {
        h.resize(n_);
        CUDA_THROW(cudaMemcpy(h.data(), ptr_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    }
    T* get() { return ptr_; }
    size_t size() const { return n_; }

private:
    T* ptr_ = nullptr;
    size_t n_;
};

__global__ void exclusive_flags(const int* keys, int* flags, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) flags[i] = (i == 0) || (keys[i] != keys[i - 1]);
}

static int count_segments(const std::vector<int>& keys) {
    if (keys.empty()) return 0;

    const int n = int(keys.size());
    DeviceBuffer<int> d_keys(n), d_flags(n);
    d_keys.upload(keys);
    exclusive_flags<<<(n + 255) / 256, 256>>>(d_keys.get(), d_flags.get(), n);
    CUDA_THROW(cudaGetLastError());

    std::vector<int> flags;
    d_flags.download(flags);          // blocking copy on the default stream
    int segments = 0;
    for (int f : flags) segments += f;
    return segments;
}

int main(int argc, char** argv) {
    const int n = argc > 1 ? std::atoi(argv[1]) : (1 << 22);
    std::vector<int> keys(n);
    for (int i = 0; i < n; ++i) keys[i] = i / 64;
    try {
        std::printf("%d segments\n", count_segments(keys));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s\n", e.what());
        return 1;
    }
    return 0;
}
