// case: A detection filter allocates per-frame buffers with cudaMallocAsync; it copies the fresh candidate buffer into the tracker's history before the filter kernel has written it (uninitialized_device_read at the device-to-device copy), and frees the score buffer with cudaFreeAsync on the copy stream before that stream waits for the filter kernel that reads it (missing_sync at that free); the other frees come after the event wait.
// expect: uninitialized_device_read=1, missing_sync=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,                \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

constexpr int kAnchors = 1 << 18;
constexpr int kMaxKeep = 4096;

__global__ void threshold_filter(const float* __restrict__ scores, int n, float thr,
                                 int* __restrict__ keep, unsigned* __restrict__ count, int cap) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || scores[i] < thr) return;
    unsigned slot = atomicAdd(count, 1u);
    if (slot < unsigned(cap)) keep[slot] = i;
}

class DetectionFilter {
public:
    DetectionFilter() {
        CUDA_CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&filtered_, cudaEventDisableTiming));
        CUDA_CHECK(cudaMallocHost(&h_scores_, kAnchors * sizeof(float)));
        CUDA_CHECK(cudaMallocHost(&h_keep_, kMaxKeep * sizeof(int)));
        CUDA_CHECK(cudaMallocHost(&h_count_, sizeof(unsigned)));
        CUDA_CHECK(cudaMalloc(&d_track_prev_, kMaxKeep * sizeof(int)));
    }
    ~DetectionFilter() {
        cudaDeviceSynchronize();
        cudaFree(d_track_prev_);
        cudaFreeHost(h_count_);
        cudaFreeHost(h_keep_);
        cudaFreeHost(h_scores_);
        cudaEventDestroy(filtered_);
        cudaStreamDestroy(copy_);
        cudaStreamDestroy(compute_);
    }

    unsigned process_frame(int frame, float thr) {
        for (int i = 0; i < kAnchors; ++i)
            h_scores_[i] = float((i * 2654435761u + frame * 40503u) % 10000u) / 10000.0f;

        float* d_scores = nullptr;
        int* d_keep = nullptr;
        unsigned* d_count = nullptr;
        CUDA_CHECK(cudaMallocAsync(&d_scores, kAnchors * sizeof(float), compute_));
        CUDA_CHECK(cudaMallocAsync(&d_keep, kMaxKeep * sizeof(int), compute_));
        CUDA_CHECK(cudaMallocAsync(&d_count, sizeof(unsigned), compute_));
        CUDA_CHECK(cudaMemcpyAsync(d_scores, h_scores_, kAnchors * sizeof(float), cudaMemcpyHostToDevice, compute_));
        CUDA_CHECK(cudaMemsetAsync(d_count, 0, sizeof(unsigned), compute_));

        // Hand the survivors to the tracker's history buffer.
        CUDA_CHECK(cudaMemcpyAsync(d_track_prev_, d_keep, kMaxKeep * sizeof(int), cudaMemcpyDeviceToDevice, compute_));  // EXPECT: uninitialized_device_read
        threshold_filter<<<(kAnchors + 255) / 256, 256, 0, compute_>>>(d_scores, kAnchors, thr, d_keep, d_count, kMaxKeep);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaFreeAsync(d_scores, copy_));  // EXPECT: missing_sync

        CUDA_CHECK(cudaEventRecord(filtered_, compute_));
        CUDA_CHECK(cudaStreamWaitEvent(copy_, filtered_, 0));
        CUDA_CHECK(cudaMemcpyAsync(h_keep_, d_keep, kMaxKeep * sizeof(int), cudaMemcpyDeviceToHost, copy_));
        CUDA_CHECK(cudaMemcpyAsync(h_count_, d_count, sizeof(unsigned), cudaMemcpyDeviceToHost, copy_));
        CUDA_CHECK(cudaFreeAsync(d_keep, copy_));
        CUDA_CHECK(cudaFreeAsync(d_count, copy_));
        CUDA_CHECK(cudaStreamSynchronize(copy_));

        unsigned kept = *h_count_ < unsigned(kMaxKeep) ? *h_count_ : unsigned(kMaxKeep);
        long long first = kept ? h_keep_[0] : -1;
        std::printf("frame %d: %u candidates (first anchor %lld)\n", frame, kept, first);
        return kept;
    }

private:
    cudaStream_t compute_ = nullptr, copy_ = nullptr;
    cudaEvent_t filtered_ = nullptr;
    float* h_scores_ = nullptr;
    int* h_keep_ = nullptr;
    unsigned* h_count_ = nullptr;
    int* d_track_prev_ = nullptr;
};

int main() {
    DetectionFilter filter;
    unsigned total = 0;
    for (int f = 0; f < 5; ++f) total += filter.process_frame(f, 0.995f);
    std::printf("total candidates %u\n", total);
    return 0;
}
