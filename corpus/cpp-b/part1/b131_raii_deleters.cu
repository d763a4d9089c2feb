// case: recommendation scorer with RAII handles: std::unique_ptr with custom deleters (cudaFreeHost for the cudaHostAlloc buffers, cudaFree for device buffers) and a std::shared_ptr stream destroyed by cudaStreamDestroy; copies use the pinned buffers and the host reads after cudaStreamSynchronize
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <type_traits>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

struct DeviceFree {
    void operator()(void* p) const noexcept { cudaFree(p); }
};
struct PinnedFree {
    void operator()(void* p) const noexcept { cudaFreeHost(p); }
};

template <typename T> using DevicePtr = std::unique_ptr<T[], DeviceFree>;
template <typename T> using PinnedPtr = std::unique_ptr<T[], PinnedFree>;
using StreamHandle = std::shared_ptr<std::remove_pointer<cudaStream_t>::type>;

template <typename T>
DevicePtr<T> make_device(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, n * sizeof(T)));
    return DevicePtr<T>(p);
}

template <typename T>
PinnedPtr<T> make_pinned(size_t n) {
    T* p = nullptr;
    CUDA_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&p), n * sizeof(T), cudaHostAllocPortable));
    return PinnedPtr<T>(p);
}

static StreamHandle make_stream() {
    cudaStream_t s = nullptr;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    return StreamHandle(s, [](cudaStream_t st) { cudaStreamSynchronize(st); cudaStreamDestroy(st); });
}

__global__ void dot_scores(const float* users, const float* items, float* scores, int n_items, int dim) {
    int it = blockIdx.x * blockDim.x + threadIdx.x;
    if (it >= n_items) return;
    float acc = 0.0f;
    for (int d = 0; d < dim; ++d) acc += users[d] * items[static_cast<size_t>(it) * dim + d];
    scores[it] = acc;
}

class Scorer {
public:
    Scorer(int n_items, int dim)
        : n_items_(n_items), dim_(dim), stream_(make_stream()),
          d_user_(make_device<float>(dim)), d_items_(make_device<float>(static_cast<size_t>(n_items) * dim)),
          d_scores_(make_device<float>(n_items)), h_user_(make_pinned<float>(dim)),
          h_scores_(make_pinned<float>(n_items)) {
        CUDA_CHECK(cudaMemsetAsync(d_items_.get(), 0, static_cast<size_t>(n_items_) * dim_ * sizeof(float), stream_.get()));
    }

    ~Scorer() { cudaStreamSynchronize(stream_.get()); }

    int best_item(const float* user_embedding) {
        for (int d = 0; d < dim_; ++d) h_user_[d] = user_embedding[d];
        CUDA_CHECK(cudaMemcpyAsync(d_user_.get(), h_user_.get(), dim_ * sizeof(float), cudaMemcpyHostToDevice, stream_.get()));
        dot_scores<<<(n_items_ + 255) / 256, 256, 0, stream_.get()>>>(d_user_.get(), d_items_.get(), d_scores_.get(), n_items_, dim_);
        CUDA_CHECK(cudaMemcpyAsync(h_scores_.get(), d_scores_.get(), n_items_ * sizeof(float), cudaMemcpyDeviceToHost, stream_.get()));
        CUDA_CHECK(cudaStreamSynchronize(stream_.get()));
        int best = 0;
        for (int i = 1; i < n_items_; ++i) if (h_scores_[i] > h_scores_[best]) best = i;
        return best;
    }

private:
    int n_items_, dim_;
    StreamHandle stream_;
    DevicePtr<float> d_user_, d_items_, d_scores_;
    PinnedPtr<float> h_user_, h_scores_;
};

int main() {
    Scorer scorer(1 << 18, 64);
    float user[64];
    for (int d = 0; d < 64; ++d) user[d] = 0.01f * d;
    std::printf("best item %d\n", scorer.best_item(user));
    return 0;
}
