// case: inference request router: the pending-request table is cudaMallocManaged with cudaMemAttachHost, so the host may fill it while the scoring kernel runs (memory associated with the host is not taken by running kernels); it is attached to the stream only afterwards, and every host access to the globally attached scores waits for the stream first: correct.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(call)                                                          \
    do {                                                                          \
        cudaError_t e_ = (call);                                                  \
        if (e_ != cudaSuccess) {                                                  \
            fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
            std::exit(1);                                                         \
        }                                                                         \
    } while (0)

struct Request {
    int id;
    int model;   // which scored model the request wants
    int route;   // filled by the router kernel
    float score; // filled by the router kernel
};

__global__ void score_models(const float* features, int models, int dim, float* scores)
{
    int m = blockIdx.x * blockDim.x + threadIdx.x;
    if (m >= models) return;
    float acc = 0.f;
    for (int d = 0; d < dim; ++d) acc += features[(size_t)m * dim + d] * 0.01f;
    scores[m] = acc;
}

__global__ void route_requests(Request* reqs, int n, const float* scores, int replicas)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    reqs[i].score = scores[reqs[i].model];
    reqs[i].route = (int)(reqs[i].score * 1000.f) % replicas;
}

int main()
{
    const int models = 4096, dim = 512, max_reqs = 1 << 16;
    std::vector<float> h_features((size_t)models * dim);
    for (size_t i = 0; i < h_features.size(); ++i) h_features[i] = (float)(i % 97) / 97.f;

    float* d_features = nullptr;
    float* scores = nullptr;   // managed, attached globally
    Request* pending = nullptr; // managed, associated with the host until attached
    CUDA_CHECK(cudaMalloc(&d_features, h_features.size() * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&scores, models * sizeof(float)));
    CUDA_CHECK(cudaMallocManaged(&pending, max_reqs * sizeof(Request), cudaMemAttachHost));
    CUDA_CHECK(cudaMemcpy(d_features, h_features.data(), h_features.size() * sizeof(float),
                          cudaMemcpyHostToDevice));

    cudaStream_t s;
    CUDA_CHECK(cudaStreamCreate(&s));
    score_models<<<(models + 127) / 128, 128, 0, s>>>(d_features, models, dim, scores);

    // while the scores are computed, queue up requests in host-associated managed memory
    for (int i = 0; i < max_reqs; ++i) {
        pending[i].id = 100000 + i;
        pending[i].model = (i * 31) % models;
        pending[i].route = -1;
        pending[i].score = 0.f;
    }

    CUDA_CHECK(cudaStreamSynchronize(s));
    float best = scores[0];
    for (int m = 1; m < models; ++m) best = scores[m] > best ? scores[m] : best;

    // hand the requests to the GPU on this stream, route them, wait
    CUDA_CHECK(cudaStreamAttachMemAsync(s, pending, 0, cudaMemAttachSingle));
    route_requests<<<max_reqs / 256, 256, 0, s>>>(pending, max_reqs, scores, 8);
    CUDA_CHECK(cudaStreamSynchronize(s));

    int per_replica[8] = {0};
    for (int i = 0; i < max_reqs; ++i) per_replica[pending[i].route]++;
    printf("best score %.3f; replica 0 gets %d of %d requests\n", best, per_replica[0], max_reqs);

    CUDA_CHECK(cudaStreamDestroy(s));
    CUDA_CHECK(cudaFree(pending));
    CUDA_CHECK(cudaFree(scores));
    CUDA_CHECK(cudaFree(d_features));
    return 0;
}
