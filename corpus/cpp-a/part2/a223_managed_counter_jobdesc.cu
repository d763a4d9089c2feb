// case: dedup job on managed memory: while the dedup kernel runs, the scheduler stamps the job descriptor (managed, not used by the kernel) and then reads the kernel's managed unique-count without synchronizing first
// expect: missing_sync=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <ctime>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

struct JobDescriptor {
    uint64_t job_id;
    int64_t submitted_at;
    uint32_t state;  // 0 queued, 1 running, 2 done
};

enum : uint32_t { kQueued = 0, kRunning = 1, kDone = 2 };

// counts the positions where a sorted key differs from its predecessor
__global__ void count_unique(const uint64_t* sorted, size_t n, unsigned long long* unique) {
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n && (i == 0 || sorted[i] != sorted[i - 1])) atomicAdd(unique, 1ull);
}

int main() {
    const size_t n = 1u << 24;
    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    uint64_t* d_sorted = nullptr;
    unsigned long long* unique = nullptr;
    JobDescriptor* job = nullptr;
    CUDA_CHECK(cudaMalloc(&d_sorted, n * sizeof(uint64_t)));
    CUDA_CHECK(cudaMallocManaged(&unique, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMallocManaged(&job, sizeof(JobDescriptor)));

    job->job_id = 4711;
    job->submitted_at = (int64_t)std::time(nullptr);
    job->state = kQueued;
    *unique = 0;
    CUDA_CHECK(cudaMemsetAsync(d_sorted, 0, n * sizeof(uint64_t), s));

    count_unique<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(d_sorted, n, unique);
    job->state = kRunning; // EXPECT: managed_concurrent_access

    unsigned long long u = *unique; // EXPECT: missing_sync
    CUDA_CHECK(cudaStreamSynchronize(s));
    job->state = kDone;
    std::printf("job %llu: %llu unique keys\n", (unsigned long long)job->job_id, u);

    CUDA_CHECK(cudaFree(job));
    CUDA_CHECK(cudaFree(unique));
    CUDA_CHECK(cudaFree(d_sorted));
    CUDA_CHECK(cudaStreamDestroy(s));
    return 0;
}
