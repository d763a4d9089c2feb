// Click-through-rate scorer: a dense tower and a sparse (embedding-bag) tower run in parallel
// and meet in an interaction layer. The request graph forks onto a second stream through an
// event recorded on the capturing stream and joins back the same way, so both towers are
// part of one recording; each tower uploads its own inputs from pinned staging.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                                 \
    do {                                                                                 \
        const cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                         \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #call,            \
                         cudaGetErrorString(e_));                                        \
            std::exit(EXIT_FAILURE);                                                     \
        }                                                                                \
    } while (0)

constexpr int kBatch = 512;
constexpr int kDense = 13;
constexpr int kSlots = 26;     // categorical features per example
constexpr int kRows = 100000;  // rows of the embedding table
constexpr int kEmb = 16;

__global__ void dense_tower(const float* __restrict__ x, const float* __restrict__ w,
                            float* __restrict__ out, int batch) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    for (int e = 0; e < kEmb; ++e) {
        float acc = 0.0f;
        for (int f = 0; f < kDense; ++f) acc += x[b * kDense + f] * w[f * kEmb + e];
        out[b * kEmb + e] = acc > 0.0f ? acc : 0.0f;
    }
}

__global__ void embedding_bag(const int* __restrict__ ids, const float* __restrict__ table,
                              float* __restrict__ out, int batch) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    for (int e = 0; e < kEmb; ++e) {
        float acc = 0.0f;
        for (int s = 0; s < kSlots; ++s) acc += table[static_cast<size_t>(ids[b * kSlots + s]) * kEmb + e];
        out[b * kEmb + e] = acc / kSlots;
    }
}

__global__ void interact(const float* __restrict__ dense, const float* __restrict__ sparse,
                         float* __restrict__ score, int batch) {
    int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= batch) return;
    float dot = 0.0f;
    for (int e = 0; e < kEmb; ++e) dot += dense[b * kEmb + e] * sparse[b * kEmb + e];
    score[b] = 1.0f / (1.0f + __expf(-dot));
}

int main() {
    cudaStream_t main_stream, side_stream;
    CUDA_CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
    CUDA_CHECK(cudaStreamCreateWithFlags(&side_stream, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CUDA_CHECK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    // Model parameters, uploaded once on the main stream.
    std::vector<float> w(kDense * kEmb), table(static_cast<size_t>(kRows) * kEmb);
    for (size_t i = 0; i < w.size(); ++i) w[i] = 0.05f * ((i % 11) - 5.0f);
    for (size_t i = 0; i < table.size(); ++i) table[i] = 0.001f * ((i * 40503u) % 2000) - 1.0f;
    float *d_w, *d_table;
    CUDA_CHECK(cudaMalloc(&d_w, w.size() * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_table, table.size() * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d_w, w.data(), w.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d_table, table.data(), table.size() * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaDeviceSynchronize());

    const size_t dense_bytes = sizeof(float) * kBatch * kDense;
    const size_t ids_bytes = sizeof(int) * kBatch * kSlots;
    const size_t emb_bytes = sizeof(float) * kBatch * kEmb;
    float *h_dense, *h_score, *d_dense, *d_dense_out, *d_sparse_out, *d_score;
    int *h_ids, *d_ids;
    CUDA_CHECK(cudaMallocHost(&h_dense, dense_bytes));
    CUDA_CHECK(cudaMallocHost(&h_ids, ids_bytes));
    CUDA_CHECK(cudaMallocHost(&h_score, kBatch * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d_dense, dense_bytes));
    CUDA_CHECK(cudaMalloc(&d_ids, ids_bytes));
    CUDA_CHECK(cudaMalloc(&d_dense_out, emb_bytes));
    CUDA_CHECK(cudaMalloc(&d_sparse_out, emb_bytes));
    CUDA_CHECK(cudaMalloc(&d_score, kBatch * sizeof(float)));

    const int threads = 128, blocks = (kBatch + threads - 1) / threads;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamBeginCapture(main_stream, cudaStreamCaptureModeGlobal));
    CUDA_CHECK(cudaEventRecord(fork, main_stream));
    CUDA_CHECK(cudaStreamWaitEvent(side_stream, fork, 0));  // side stream joins the capture
    // Sparse tower on the side stream.
    CUDA_CHECK(cudaMemcpyAsync(d_ids, h_ids, ids_bytes, cudaMemcpyHostToDevice, side_stream));
    embedding_bag<<<blocks, threads, 0, side_stream>>>(d_ids, d_table, d_sparse_out, kBatch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(join, side_stream));
    // Dense tower on the capturing stream.
    CUDA_CHECK(cudaMemcpyAsync(d_dense, h_dense, dense_bytes, cudaMemcpyHostToDevice, main_stream));
    dense_tower<<<blocks, threads, 0, main_stream>>>(d_dense, d_w, d_dense_out, kBatch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaStreamWaitEvent(main_stream, join, 0));
    interact<<<blocks, threads, 0, main_stream>>>(d_dense_out, d_sparse_out, d_score, kBatch);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaMemcpyAsync(h_score, d_score, kBatch * sizeof(float), cudaMemcpyDeviceToHost, main_stream));
    CUDA_CHECK(cudaStreamEndCapture(main_stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));

    double mean_ctr = 0.0;
    const int requests = 200;
    for (int r = 0; r < requests; ++r) {
        for (int i = 0; i < kBatch * kDense; ++i) h_dense[i] = 0.1f * ((i + r) % 23);
        for (int i = 0; i < kBatch * kSlots; ++i) h_ids[i] = (i * 7919 + r * 31) % kRows;
        CUDA_CHECK(cudaGraphLaunch(exec, main_stream));
        CUDA_CHECK(cudaStreamSynchronize(main_stream));
        double sum = 0.0;
        for (int b = 0; b < kBatch; ++b) sum += h_score[b];
        mean_ctr += sum / kBatch;
    }
    std::printf("mean predicted CTR %.4f\n", mean_ctr / requests);

    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    CUDA_CHECK(cudaFree(d_score));
    CUDA_CHECK(cudaFree(d_sparse_out));
    CUDA_CHECK(cudaFree(d_dense_out));
    CUDA_CHECK(cudaFree(d_ids));
    CUDA_CHECK(cudaFree(d_dense));
    CUDA_CHECK(cudaFreeHost(h_score));
    CUDA_CHECK(cudaFreeHost(h_ids));
    CUDA_CHECK(cudaFreeHost(h_dense));
    CUDA_CHECK(cudaFree(d_table));
    CUDA_CHECK(cudaFree(d_w));
    CUDA_CHECK(cudaEventDestroy(join));
    CUDA_CHECK(cudaEventDestroy(fork));
    CUDA_CHECK(cudaStreamDestroy(side_stream));
    CUDA_CHECK(cudaStreamDestroy(main_stream));
    return 0;
}
