// case: a Trainer keeps its epoch metrics in a managed struct; step() launches the augmentation kernel on the loader stream (device buffers only) and then reset_metrics() zeroes the managed metrics on the host while that kernel may still run.
// expect: managed_concurrent_access=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#define CHECK(x)                                                                  \
    do {                                                                          \
        cudaError_t rc = (x);                                                     \
        if (rc != cudaSuccess) {                                                  \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(rc)); \
            std::exit(3);                                                         \
        }                                                                         \
    } while (0)

struct EpochMetrics {
    float loss_sum;
    int correct;
    int seen;
};

__global__ void augment_flip_jitter(const float* src, float* dst, int images, int hw, unsigned seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= images * hw) return;
    int img = i / hw, px = i % hw;
    bool flip = ((img * 1103515245u + seed) >> 16) & 1u;
    int srcpx = flip ? hw - 1 - px : px;
    dst[i] = src[img * hw + srcpx] * (0.9f + 0.2f * ((seed ^ img) % 100) / 100.f);
}

__global__ void softmax_xent(const float* logits, const int* labels, int batch, int classes, EpochMetrics* m) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    const float* z = logits + b * classes;
    float mx = z[0]; int arg = 0;
    for (int c = 1; c < classes; ++c) if (z[c] > mx) { mx = z[c]; arg = c; }
    float den = 0.f;
    for (int c = 0; c < classes; ++c) den += __expf(z[c] - mx);
    atomicAdd(&m->loss_sum, -(z[labels[b]] - mx - __logf(den)));
    atomicAdd(&m->correct, arg == labels[b] ? 1 : 0);
    atomicAdd(&m->seen, 1);
}

class Trainer {
public:
    Trainer(int batch, int hw, int classes) : batch_(batch), hw_(hw), classes_(classes) {
        CHECK(cudaStreamCreateWithFlags(&loader_, cudaStreamNonBlocking));
        CHECK(cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking));
        CHECK(cudaMalloc(&d_raw_, sizeof(float) * batch * hw));
        CHECK(cudaMalloc(&d_aug_, sizeof(float) * batch * hw));
        CHECK(cudaMalloc(&d_logits_, sizeof(float) * batch * classes));
        CHECK(cudaMalloc(&d_labels_, sizeof(int) * batch));
        CHECK(cudaMallocManaged(&metrics_, sizeof(EpochMetrics)));
        CHECK(cudaMemset(d_raw_, 0, sizeof(float) * batch * hw));
        CHECK(cudaMemset(d_logits_, 0, sizeof(float) * batch * classes));
        CHECK(cudaMemset(d_labels_, 0, sizeof(int) * batch));
        CHECK(cudaDeviceSynchronize());
    }
    ~Trainer() {
        cudaDeviceSynchronize();
        cudaFree(metrics_);
        cudaFree(d_labels_);
        cudaFree(d_logits_);
        cudaFree(d_aug_);
        cudaFree(d_raw_);
        cudaStreamDestroy(compute_);
        cudaStreamDestroy(loader_);
    }

    void start_epoch(unsigned seed) {
        launch_augment(seed);
        reset_metrics();
    }

    void evaluate_batch() {
        CHECK(cudaStreamSynchronize(loader_));
        softmax_xent<<<(batch_ + 127) / 128, 128, 0, compute_>>>(d_logits_, d_labels_, batch_, classes_, metrics_);
        CHECK(cudaStreamSynchronize(compute_));
    }

    void report() const {
        std::printf("loss %.4f acc %.3f\n", metrics_->loss_sum / metrics_->seen,
                    static_cast<float>(metrics_->correct) / metrics_->seen);
    }

private:
    void launch_augment(unsigned seed) {
        int n = batch_ * hw_;
        augment_flip_jitter<<<(n + 255) / 256, 256, 0, loader_>>>(d_raw_, d_aug_, batch_, hw_, seed);
    }

    void reset_metrics() {
        metrics_->loss_sum = 0.f;  // EXPECT: managed_concurrent_access
        metrics_->correct = 0;
        metrics_->seen = 0;
    }

    int batch_, hw_, classes_;
    cudaStream_t loader_ = nullptr, compute_ = nullptr;
    float* d_raw_ = nullptr;
    float* d_aug_ = nullptr;
    float* d_logits_ = nullptr;
    int* d_labels_ = nullptr;
    EpochMetrics* metrics_ = nullptr;
};

int main() {
    Trainer trainer(256, 224 * 224, 1000);
    std::mt19937 rng(42);
    trainer.start_epoch(rng());
    trainer.evaluate_batch();
    trainer.report();
    return 0;
}
