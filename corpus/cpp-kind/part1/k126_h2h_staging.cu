// case: a batch loader packs pageable std::vector samples into a malloc staging buffer with cudaMemcpyHostToHost, then uploads the staging buffer with HostToDevice; all kinds match.
// expect: none
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

__global__ void meanPerSample(const float* batch, float* means, int dim) {
    int s = blockIdx.x;
    float acc = 0.f;
    for (int d = threadIdx.x; d < dim; d += blockDim.x) acc += batch[s * dim + d];
    atomicAdd(&means[s], acc / dim);
}

int main() {
    const int batchSize = 32, dim = 3 * 224 * 224;
    std::vector<std::vector<float>> dataset(batchSize, std::vector<float>(dim));
    for (int s = 0; s < batchSize; ++s)
        for (int d = 0; d < dim; ++d) dataset[s][d] = (float)((s + d) % 7);

    const size_t sampleBytes = dim * sizeof(float);
    float* staging = (float*)malloc(batchSize * sampleBytes);
    for (int s = 0; s < batchSize; ++s)
        cudaMemcpy(staging + (size_t)s * dim, dataset[s].data(), sampleBytes, cudaMemcpyHostToHost);

    float *d_batch, *d_means;
    cudaMalloc(&d_batch, batchSize * sampleBytes);
    cudaMalloc(&d_means, batchSize * sizeof(float));
    cudaMemset(d_means, 0, batchSize * sizeof(float));
    cudaMemcpy(d_batch, staging, batchSize * sampleBytes, cudaMemcpyHostToDevice);

    meanPerSample<<<batchSize, 256>>>(d_batch, d_means, dim);
    std::vector<float> means(batchSize);
    cudaMemcpy(means.data(), d_means, batchSize * sizeof(float), cudaMemcpyDeviceToHost);
    printf("mean of sample 0: %f\n", means[0]);

    cudaFree(d_batch);
    cudaFree(d_means);
    free(staging);
    return 0;
}
