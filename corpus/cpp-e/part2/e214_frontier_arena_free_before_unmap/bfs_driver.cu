// case: a graph BFS frontier manager carves its two frontier queues out of a VMM arena whose release() frees the reserved range with cuMemAddressFree before cuMemUnmap, while the range is still mapped.
// expect: vmm_lifecycle=1
#include "vmm_arena.h"
#include <memory>

constexpr int kVertices = 1 << 20;

__global__ void seed_frontier(int* q, int* q_len, int source) {
    if (threadIdx.x == 0 && blockIdx.x == 0) { q[0] = source; *q_len = 1; }
}

__global__ void advance(const int* cur, const int* cur_len, int* next, int* next_len, int n) {
    int t = blockIdx.x * blockDim.x + threadIdx.x;
    if (t < *cur_len) {
        int v = cur[t];
        int slot = atomicAdd(next_len, 2);
        next[slot] = (v * 2 + 1) % n;
        next[slot + 1] = (v * 2 + 2) % n;
    }
}

class FrontierQueues {
public:
    FrontierQueues(CUstream s)
        : stream_(s), arena_(std::make_unique<VmmArena>(2 * (kVertices + 32) * sizeof(int), 0)) {
        queue_[0] = arena_->at<int>(0);
        queue_[1] = arena_->at<int>((kVertices + 32) * sizeof(int));
    }
    ~FrontierQueues() {
        cuStreamSynchronize(stream_);
        arena_.reset();
    }

    void run_levels(int levels) {
        int* len0 = queue_[0] + kVertices;
        int* len1 = queue_[1] + kVertices;
        seed_frontier<<<1, 32, 0, stream_>>>(queue_[0], len0, 0);
        for (int l = 0; l < levels; ++l) {
            int* cur = queue_[l & 1];
            int* nxt = queue_[(l + 1) & 1];
            int* cl = (l & 1) ? len1 : len0;
            int* nl = (l & 1) ? len0 : len1;
            CU_TRY(cuMemsetD32Async(reinterpret_cast<CUdeviceptr>(nl), 0, 1, stream_));
            advance<<<kVertices / 256, 256, 0, stream_>>>(cur, cl, nxt, nl, kVertices);
        }
    }

private:
    CUstream stream_;
    std::unique_ptr<VmmArena> arena_;
    int* queue_[2] = {nullptr, nullptr};
};

int main() {
    CU_TRY(cuInit(0));
    CUdevice dev;
    CUcontext ctx;
    CU_TRY(cuDeviceGet(&dev, 0));
    CU_TRY(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU_TRY(cuCtxSetCurrent(ctx));
    CUstream stream;
    CU_TRY(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    {
        FrontierQueues fq(stream);
        fq.run_levels(18);
    }
    CU_TRY(cuStreamDestroy(stream));
    CU_TRY(cuDevicePrimaryCtxRelease(dev));
    return 0;
}
