// case: a readback into pinned memory is followed on the same stream by cudaLaunchHostFunc whose callback (batch_sink.h) sums the results, which is stream-ordered after the copy; the main thread synchronizes the stream before it reads the callback's total and frees the buffers: correct.
// expect: none
#include <cstdio>
#include "batch_sink.h"

__global__ void score(const float* feats, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = 1.0f / (1.0f + __expf(-feats[i]));
}

int main() {
    const int n = 1 << 20;
    float *h_feats, *h_scores, *d_feats, *d_scores;
    CHECK(cudaMallocHost(&h_feats, n * sizeof(float)));
    CHECK(cudaMallocHost(&h_scores, n * sizeof(float)));
    CHECK(cudaMalloc(&d_feats, n * sizeof(float)));
    CHECK(cudaMalloc(&d_scores, n * sizeof(float)));
    for (int i = 0; i < n; ++i) h_feats[i] = (float)(i % 21 - 10);

    cudaStream_t s;
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    BatchSink sink;
    sink.results = h_scores;
    sink.count = n;
    sink.batch = 0;
    sink.total = 0.0;
    sink.done.store(0);

    CHECK(cudaMemcpyAsync(d_feats, h_feats, n * sizeof(float), cudaMemcpyHostToDevice, s));
    score<<<(n + 255) / 256, 256, 0, s>>>(d_feats, d_scores, n);
    CHECK(cudaGetLastError());
    CHECK(cudaMemcpyAsync(h_scores, d_scores, n * sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaLaunchHostFunc(s, consume_batch, &sink));

    CHECK(cudaStreamSynchronize(s));
    printf("batch %d total score %f (done=%d)\n", sink.batch, sink.total, sink.done.load());

    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(d_scores));
    CHECK(cudaFree(d_feats));
    CHECK(cudaFreeHost(h_scores));
    CHECK(cudaFreeHost(h_feats));
    return 0;
}
