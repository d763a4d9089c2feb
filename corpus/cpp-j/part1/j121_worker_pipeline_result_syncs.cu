// case: a small worker class owns a stream, pinned in/out buffers and device buffers; submit() enqueues upload, kernel and download, and result() waits on the completion event before handing out the pinned output
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x) do { cudaError_t e__ = (x); if (e__ != cudaSuccess) { \
    fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e__)); std::exit(1); } } while (0)

__global__ void square(const float* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i];
}

class Worker {
public:
    explicit Worker(int n) : n_(n) {
        CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done_, cudaEventDisableTiming));
        CHECK(cudaMallocHost(&h_in_, n * sizeof(float)));
        CHECK(cudaMallocHost(&h_out_, n * sizeof(float)));
        CHECK(cudaMalloc(&d_in_, n * sizeof(float)));
        CHECK(cudaMalloc(&d_out_, n * sizeof(float)));
    }
    ~Worker() {
        cudaStreamSynchronize(stream_);
        cudaFree(d_out_);
        cudaFree(d_in_);
        cudaFreeHost(h_out_);
        cudaFreeHost(h_in_);
        cudaEventDestroy(done_);
        cudaStreamDestroy(stream_);
    }
    float* input() { return h_in_; }
    void submit() {
        CHECK(cudaMemcpyAsync(d_in_, h_in_, n_ * sizeof(float), cudaMemcpyHostToDevice, stream_));
        square<<<(n_ + 255) / 256, 256, 0, stream_>>>(d_in_, d_out_, n_);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h_out_, d_out_, n_ * sizeof(float), cudaMemcpyDeviceToHost, stream_));
        CHECK(cudaEventRecord(done_, stream_));
    }
    const float* result() {
        CHECK(cudaEventSynchronize(done_));
        return h_out_;
    }
private:
    int n_;
    cudaStream_t stream_;
    cudaEvent_t done_;
    float *h_in_, *h_out_, *d_in_, *d_out_;
};

int main() {
    const int n = 1 << 20;
    const int nWorkers = 3;
    std::vector<Worker*> workers;
    for (int w = 0; w < nWorkers; ++w) workers.push_back(new Worker(n));

    for (int w = 0; w < nWorkers; ++w) {
        float* in = workers[w]->input();
        for (int i = 0; i < n; ++i) in[i] = float(w + 1);
        workers[w]->submit();
    }
    for (int w = 0; w < nWorkers; ++w) {
        const float* out = workers[w]->result();
        printf("worker %d: out[0]=%g out[n-1]=%g\n", w, out[0], out[n - 1]);
    }
    for (Worker* w : workers) delete w;
    return 0;
}
