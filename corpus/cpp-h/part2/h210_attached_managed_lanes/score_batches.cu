// case: scoring service edits a host-attached managed control block and a managed scratch attached (cudaMemAttachSingle) to an idle second stream while a kernel runs on the compute stream; neither allocation is visible to that kernel, so no concurrent-access hazard.
// expect: none
#include "lanes.h"
#include <cstdio>

__global__ void score(const float* features, float* scores, int n, float bias) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) scores[i] = tanhf(features[i] * 0.5f + bias);
}

int main() {
    const int n = 1 << 22;
    cudaStream_t compute;
    cudaStreamCreateWithFlags(&compute, cudaStreamNonBlocking);

    float *d_features = nullptr, *d_scores = nullptr;
    cudaMalloc(&d_features, n * sizeof(float));
    cudaMalloc(&d_scores, n * sizeof(float));
    cudaMemsetAsync(d_features, 0, n * sizeof(float), compute);

    BatchControl* ctl = nullptr;
    cudaMallocManaged(&ctl, sizeof(BatchControl), cudaMemAttachHost);

    StreamScratch prep;
    prep.create(4096);

    for (int batch = 0; batch < 8; ++batch) {
        score<<<(n + 255) / 256, 256, 0, compute>>>(d_features, d_scores, n, 0.01f * batch);
        // host-side bookkeeping while the kernel runs
        ctl->batch_id = batch;
        ctl->n_items = n;
        ctl->threshold = 0.25f + 0.01f * batch;
        ctl->flags = batch & 1;
        for (size_t i = 0; i < prep.n; ++i) prep.data[i] = ctl->threshold * float(i);
        cudaStreamSynchronize(compute);
    }

    float sum = 0.0f;
    for (size_t i = 0; i < prep.n; ++i) sum += prep.data[i];
    printf("last batch %d, scratch sum %f\n", ctl->batch_id, sum);

    prep.destroy();
    cudaFree(ctl);
    cudaFree(d_features);
    cudaFree(d_scores);
    cudaStreamDestroy(compute);
    return 0;
}
