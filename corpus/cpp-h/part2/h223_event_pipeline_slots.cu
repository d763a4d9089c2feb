// case: three-stage copy/compute/readback pipeline over a vector of pinned slots on two non-blocking streams, ordered with cudaStreamWaitEvent between stages; the consumer callback (std::function) reads a slot only after cudaEventSynchronize on its ready event, and refills a slot only after the same wait.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void saxpy_inplace(float* x, int n, float a) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * x[i] + 1.0f;
}

struct Slot {
    float* h_in = nullptr;
    float* h_out = nullptr;
    float* d_buf = nullptr;
    cudaEvent_t uploaded = nullptr, computed = nullptr, ready = nullptr;
    int batch = -1;
};

class Pipeline {
public:
    using Consumer = std::function<void(int batch, const float* data, int n)>;

    Pipeline(int n, int depth, Consumer consumer) : n_(n), slots_(depth), consumer_(std::move(consumer)) {
        cudaStreamCreateWithFlags(&copy_, cudaStreamNonBlocking);
        cudaStreamCreateWithFlags(&compute_, cudaStreamNonBlocking);
        for (Slot& s : slots_) {
            cudaMallocHost(&s.h_in, n_ * sizeof(float));
            cudaMallocHost(&s.h_out, n_ * sizeof(float));
            cudaMalloc(&s.d_buf, n_ * sizeof(float));
            cudaEventCreateWithFlags(&s.uploaded, cudaEventDisableTiming);
            cudaEventCreateWithFlags(&s.computed, cudaEventDisableTiming);
            cudaEventCreateWithFlags(&s.ready, cudaEventDisableTiming);
        }
    }
    ~Pipeline() {
        drain();
        for (Slot& s : slots_) {
            cudaFreeHost(s.h_in); cudaFreeHost(s.h_out); cudaFree(s.d_buf);
            cudaEventDestroy(s.uploaded); cudaEventDestroy(s.computed); cudaEventDestroy(s.ready);
        }
        cudaStreamDestroy(copy_); cudaStreamDestroy(compute_);
    }

    void submit(int batch) {
        Slot& s = slots_[batch % slots_.size()];
        finish(s);
        for (int i = 0; i < n_; ++i) s.h_in[i] = float(batch) + 1e-3f * i;
        cudaMemcpyAsync(s.d_buf, s.h_in, n_ * sizeof(float), cudaMemcpyHostToDevice, copy_);
        cudaEventRecord(s.uploaded, copy_);
        cudaStreamWaitEvent(compute_, s.uploaded, 0);
        saxpy_inplace<<<(n_ + 255) / 256, 256, 0, compute_>>>(s.d_buf, n_, 2.0f);
        cudaEventRecord(s.computed, compute_);
        cudaStreamWaitEvent(copy_, s.computed, 0);
        cudaMemcpyAsync(s.h_out, s.d_buf, n_ * sizeof(float), cudaMemcpyDeviceToHost, copy_);
        cudaEventRecord(s.ready, copy_);
        s.batch = batch;
    }

    void drain() { for (Slot& s : slots_) finish(s); }

private:
    void finish(Slot& s) {
        cudaEventSynchronize(s.ready);
        if (s.batch >= 0) consumer_(s.batch, s.h_out, n_);
        s.batch = -1;
    }

    int n_;
    std::vector<Slot> slots_;
    Consumer consumer_;
    cudaStream_t copy_{}, compute_{};
};

int main() {
    double checksum = 0;
    Pipeline p(1 << 20, 3, [&](int batch, const float* data, int n) {
        double s = 0;
        for (int i = 0; i < n; ++i) s += data[i];
        checksum += s;
        printf("batch %d done\n", batch);
    });
    for (int b = 0; b < 10; ++b) p.submit(b);
    p.drain();
    printf("checksum %.3f\n", checksum);
    return 0;
}
