// case: a cross-entropy loss routine uses stream-ordered cudaMallocAsync temporaries and releases each with cudaFreeAsync on both error returns and on the normal path
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define NUM_CLASSES 1000
#define BATCH 512

__global__ void per_sample_loss(const float* logits, const int* labels, float* loss, int classes) {
    int b = blockIdx.x;
    const float* row = logits + b * classes;
    float m = row[0];
    for (int c = 1; c < classes; ++c) m = fmaxf(m, row[c]);
    float s = 0.f;
    for (int c = 0; c < classes; ++c) s += expf(row[c] - m);
    if (threadIdx.x == 0) loss[b] = logf(s) + m - row[labels[b]];
}

__global__ void mean_loss(const float* loss, float* out, int n) {
    float acc = 0.f;
    for (int i = threadIdx.x; i < n; i += blockDim.x) acc += loss[i];
    atomicAdd(out, acc / n);
}

cudaError_t cross_entropy(const float* d_logits, const int* d_labels, float* h_out,
                          cudaStream_t stream) {
    float* d_loss = nullptr;
    float* d_mean = nullptr;
    cudaError_t err = cudaMallocAsync(&d_loss, BATCH * sizeof(float), stream);
    if (err != cudaSuccess) return err;
    err = cudaMallocAsync(&d_mean, sizeof(float), stream);
    if (err != cudaSuccess) {
        cudaFreeAsync(d_loss, stream);
        return err;
    }
    err = cudaMemsetAsync(d_mean, 0, sizeof(float), stream);
    if (err != cudaSuccess) {
        cudaFreeAsync(d_mean, stream);
        cudaFreeAsync(d_loss, stream);
        return err;
    }
    per_sample_loss<<<BATCH, 32, 0, stream>>>(d_logits, d_labels, d_loss, NUM_CLASSES);
    mean_loss<<<1, 256, 0, stream>>>(d_loss, d_mean, BATCH);
    err = cudaMemcpyAsync(h_out, d_mean, sizeof(float), cudaMemcpyDeviceToHost, stream);
    cudaFreeAsync(d_mean, stream);
    cudaFreeAsync(d_loss, stream);
    return err;
}

int main() {
    std::vector<float> logits(BATCH * NUM_CLASSES);
    std::vector<int> labels(BATCH);
    for (int b = 0; b < BATCH; ++b) {
        labels[b] = (b * 7) % NUM_CLASSES;
        for (int c = 0; c < NUM_CLASSES; ++c)
            logits[b * NUM_CLASSES + c] = (c == labels[b]) ? 3.0f : 0.0f;
    }

    cudaStream_t stream;
    cudaStreamCreate(&stream);
    float *d_logits, *h_loss;
    int* d_labels;
    cudaMalloc(&d_logits, logits.size() * sizeof(float));
    cudaMalloc(&d_labels, labels.size() * sizeof(int));
    cudaMallocHost(&h_loss, sizeof(float));
    cudaMemcpy(d_logits, logits.data(), logits.size() * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_labels, labels.data(), labels.size() * sizeof(int), cudaMemcpyHostToDevice);

    cudaError_t err = cross_entropy(d_logits, d_labels, h_loss, stream);
    cudaStreamSynchronize(stream);
    if (err == cudaSuccess)
        printf("mean loss %.5f (expected %.5f)\n", *h_loss,
               logf(expf(3.0f) + (NUM_CLASSES - 1)) - 3.0f);
    else
        fprintf(stderr, "loss failed: %s\n", cudaGetErrorString(err));

    cudaFree(d_logits);
    cudaFree(d_labels);
    cudaFreeHost(h_loss);
    cudaStreamDestroy(stream);
    return err == cudaSuccess ? 0 : 1;
}
