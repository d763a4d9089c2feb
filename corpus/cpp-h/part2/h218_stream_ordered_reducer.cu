// case: stream-ordered Monte Carlo reducer (cudaMallocAsync/cudaFreeAsync) reads its per-block partials back with cudaMemcpyAsync into a plain new[] array of run-time size, and updates a globally attached managed progress record on the host while the sampling kernel runs.
// expect: pageable_async_copy=1, managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>

struct Progress { int round; long long samples; double last_estimate; };

__global__ void sample_pi(unsigned long long seed, int per_thread, double* partial) {
    __shared__ int hits[256];
    unsigned long long s = seed + (blockIdx.x * 256ull + threadIdx.x) * 0x9E3779B97F4A7C15ull;
    int h = 0;
    for (int k = 0; k < per_thread; ++k) {
        s ^= s << 13; s ^= s >> 7; s ^= s << 17;
        float x = (s & 0xffffff) / float(0xffffff);
        float y = ((s >> 24) & 0xffffff) / float(0xffffff);
        h += (x * x + y * y) <= 1.0f;
    }
    hits[threadIdx.x] = h;
    __syncthreads();
    for (int st = 128; st > 0; st >>= 1) {
        if (threadIdx.x < st) hits[threadIdx.x] += hits[threadIdx.x + st];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = hits[0];
}

class PiEstimator {
public:
    PiEstimator(int blocks, int per_thread) : blocks_(blocks), per_thread_(per_thread) {
        cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking);
        cudaMallocManaged(&progress_, sizeof(Progress));
        progress_->round = 0; progress_->samples = 0; progress_->last_estimate = 0.0;
        h_partial_.reset(new double[blocks_]);
    }
    ~PiEstimator() {
        cudaStreamSynchronize(stream_);
        cudaFree(progress_);
        cudaStreamDestroy(stream_);
    }

    double round(unsigned long long seed) {
        double* d_partial = nullptr;
        cudaMallocAsync(&d_partial, blocks_ * sizeof(double), stream_);
        sample_pi<<<blocks_, 256, 0, stream_>>>(seed, per_thread_, d_partial);
        progress_->round += 1;
        progress_->samples += (long long)blocks_ * 256 * per_thread_;
        cudaMemcpyAsync(h_partial_.get(), d_partial, blocks_ * sizeof(double), cudaMemcpyDeviceToHost, stream_);
        cudaFreeAsync(d_partial, stream_);
        cudaStreamSynchronize(stream_);
        double hits = 0;
        for (int b = 0; b < blocks_; ++b) hits += h_partial_[b];
        double est = 4.0 * hits / (double(blocks_) * 256 * per_thread_);
        progress_->last_estimate = est;
        return est;
    }

    const Progress& progress() const { return *progress_; }

private:
    int blocks_, per_thread_;
    cudaStream_t stream_{};
    Progress* progress_ = nullptr;
    std::unique_ptr<double[]> h_partial_;
};

int main(int argc, char**) {
    PiEstimator pi(argc > 1 ? 262144 : 65536, 64);
    for (unsigned long long r = 0; r < 10; ++r) pi.round(r * 7919ull + 1);
    printf("after %d rounds (%lld samples): pi ~ %.8f\n", pi.progress().round,
           pi.progress().samples, pi.progress().last_estimate);
    return 0;
}
