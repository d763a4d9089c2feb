// Telemetry ingest: latency samples arrive in batches and are binned on the GPU into a
// log-scale latency histogram that stays on the device until the end of the run. A batch is
// packed into a pinned staging buffer and the recorded graph uploads it and bins it; the
// loop does not wait for a replay before packing the next batch.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        cudaError_t e_ = (call);                                                         \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "ingest: %s (%s:%d)\n", cudaGetErrorString(e_),          \
                         __FILE__, __LINE__);                                            \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kBins = 128;

__global__ void bin_latencies(const float* __restrict__ us, int n, unsigned int* __restrict__ hist) {
    __shared__ unsigned int local[kBins];
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) local[i] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = us[i] < 1.0f ? 1.0f : us[i];
        int bin = static_cast<int>(8.0f * log2f(v));
        atomicAdd(&local[bin < kBins ? bin : kBins - 1], 1u);
    }
    __syncthreads();
    for (int i = threadIdx.x; i < kBins; i += blockDim.x) atomicAdd(&hist[i], local[i]);
}

int main(int argc, char** argv) {
    const int batch = 1 << 18;
    const int batches = argc > 1 ? std::atoi(argv[1]) : 200;
    const size_t batch_bytes = batch * sizeof(float);

    // The whole capture, as read from disk.
    std::vector<float> samples(static_cast<size_t>(batch) * batches);
    for (size_t i = 0; i < samples.size(); ++i)
        samples[i] = 50.0f + 400.0f * std::fabs(std::sin(0.001f * static_cast<float>(i)));

    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    float *h_batch, *d_batch;
    unsigned int* d_hist;
    CUDA_CHECK(cudaMallocHost(&h_batch, batch_bytes));
    CUDA_CHECK(cudaMalloc(&d_batch, batch_bytes));
    CUDA_CHECK(cudaMalloc(&d_hist, kBins * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemsetAsync(d_hist, 0, kBins * sizeof(unsigned int), stream));

    cudaGraph_t graph;
    cudaGraphExec_t ingest;
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaMemcpyAsync(d_batch, h_batch, batch_bytes, cudaMemcpyHostToDevice, stream));
    bin_latencies<<<264, 256, 0, stream>>>(d_batch, batch, d_hist);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&ingest, graph, 0));

    for (int b = 0; b < batches; ++b) {
        std::memcpy(h_batch, samples.data() + static_cast<size_t>(b) * batch, batch_bytes);  // EXPECT: missing_sync
        CUDA_CHECK(cudaGraphLaunch(ingest, stream));
    }
    CUDA_CHECK(cudaStreamSynchronize(stream));

    std::vector<unsigned int> hist(kBins);
    CUDA_CHECK(cudaMemcpy(hist.data(), d_hist, kBins * sizeof(unsigned int), cudaMemcpyDeviceToHost));
    unsigned long long total = 0, below = 0;
    for (int i = 0; i < kBins; ++i) total += hist[i];
    int p99 = 0;
    for (; p99 < kBins && below * 100 < total * 99; ++p99) below += hist[p99];
    std::printf("%llu samples, p99 below %.0f us\n", total, std::exp2(p99 / 8.0));

    CUDA_CHECK(cudaGraphExecDestroy(ingest));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_hist));
    CUDA_CHECK(cudaFree(d_batch));
    CUDA_CHECK(cudaFreeHost(h_batch));
    CUDA_CHECK(cudaStreamDestroy(stream));
    return 0;
}
