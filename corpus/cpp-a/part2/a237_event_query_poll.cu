// case: request scheduler keeps a std::vector of in-flight slots (stream, event, pinned output) and polls each slot's completion event with cudaEventQuery until it reports cudaSuccess before touching the pinned output: near-miss, the host reads only after the event that follows the copy completed
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CUDA_CHECK(x)                                                          \
    do {                                                                       \
        cudaError_t e_ = (x);                                                  \
        if (e_ != cudaSuccess) {                                               \
            std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));       \
            std::exit(1);                                                      \
        }                                                                      \
    } while (0)

__global__ void score_requests(const float* feats, int n, int dim, float* scores) {
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= n) return;
    float s = 0.f;
    for (int d = 0; d < dim; ++d) s += feats[(size_t)r * dim + d];
    scores[r] = s / dim;
}

struct Slot {
    cudaStream_t stream;
    cudaEvent_t done;
    float* d_feats;
    float* d_scores;
    float* h_scores;
    bool busy;
};

class Scheduler {
public:
    Scheduler(int n_slots, int max_req, int dim) : max_req_(max_req), dim_(dim), slots_(n_slots) {
        for (Slot& sl : slots_) {
            CUDA_CHECK(cudaStreamCreateWithFlags(&sl.stream, cudaStreamNonBlocking));
            CUDA_CHECK(cudaEventCreateWithFlags(&sl.done, cudaEventDisableTiming));
            CUDA_CHECK(cudaMalloc(&sl.d_feats, (size_t)max_req * dim * sizeof(float)));
            CUDA_CHECK(cudaMalloc(&sl.d_scores, max_req * sizeof(float)));
            CUDA_CHECK(cudaMallocHost(&sl.h_scores, max_req * sizeof(float)));
            CUDA_CHECK(cudaMemsetAsync(sl.d_feats, 0, (size_t)max_req * dim * sizeof(float), sl.stream));
            sl.busy = false;
        }
    }
    ~Scheduler() {
        for (Slot& sl : slots_) {
            cudaStreamSynchronize(sl.stream);
            cudaFreeHost(sl.h_scores);
            cudaFree(sl.d_scores);
            cudaFree(sl.d_feats);
            cudaEventDestroy(sl.done);
            cudaStreamDestroy(sl.stream);
        }
    }

    void submit(int i, int n) {
        Slot& sl = slots_[i];
        score_requests<<<(n + 127) / 128, 128, 0, sl.stream>>>(sl.d_feats, n, dim_, sl.d_scores);
        CUDA_CHECK(cudaMemcpyAsync(sl.h_scores, sl.d_scores, n * sizeof(float), cudaMemcpyDeviceToHost, sl.stream));
        CUDA_CHECK(cudaEventRecord(sl.done, sl.stream));
        sl.busy = true;
    }

    float collect(int i, int n) {
        Slot& sl = slots_[i];
        cudaError_t st;
        while ((st = cudaEventQuery(sl.done)) == cudaErrorNotReady) std::this_thread::yield();
        CUDA_CHECK(st);
        sl.busy = false;
        float mx = sl.h_scores[0];
        for (int r = 1; r < n; ++r) mx = sl.h_scores[r] > mx ? sl.h_scores[r] : mx;
        return mx;
    }

private:
    int max_req_, dim_;
    std::vector<Slot> slots_;
};

int main() {
    const int slots = 4, n = 1 << 14;
    Scheduler sched(slots, n, 128);
    for (int i = 0; i < slots; ++i) sched.submit(i, n);
    for (int i = 0; i < slots; ++i) std::printf("slot %d max %f\n", i, sched.collect(i, n));
    return 0;
}
