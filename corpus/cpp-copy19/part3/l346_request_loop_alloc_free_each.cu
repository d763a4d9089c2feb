// case: a request-serving loop allocates a per-request device buffer and frees it before the `continue` on a rejected request as well as at the end of each iteration
// expect: none
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_OK(x)                                                           \
    do {                                                                     \
        cudaError_t rc = (x);                                                \
        if (rc != cudaSuccess) {                                             \
            fprintf(stderr, "fatal: %s (%s)\n", cudaGetErrorString(rc), #x); \
            exit(3);                                                         \
        }                                                                    \
    } while (0)

struct Request {
    int id;
    std::vector<float> payload;
};

__global__ void zscore(float* v, int n, float mean, float inv_std) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = (v[i] - mean) * inv_std;
}

static std::vector<Request> make_requests() {
    std::vector<Request> rs;
    for (int id = 0; id < 24; ++id) {
        int n = (id % 5 == 4) ? 0 : 4096 * (1 + id % 7);
        Request r{id, std::vector<float>(n)};
        for (int i = 0; i < n; ++i) r.payload[i] = (float)((i * (id + 3)) % 17);
        rs.push_back(std::move(r));
    }
    return rs;
}

int main() {
    std::vector<Request> requests = make_requests();
    int served = 0, rejected = 0;

    for (Request& req : requests) {
        const int n = (int)req.payload.size();
        float* d_buf = nullptr;
        CUDA_OK(cudaMalloc(&d_buf, (n > 0 ? n : 1) * sizeof(float)));

        double mean = 0.0, sq = 0.0;
        for (float v : req.payload) { mean += v; sq += v * v; }
        if (n == 0 || sq / n - (mean / n) * (mean / n) <= 0.0) {
            CUDA_OK(cudaFree(d_buf));
            ++rejected;
            continue;
        }
        mean /= n;
        float inv_std = 1.0f / sqrtf((float)(sq / n - mean * mean));

        CUDA_OK(cudaMemcpy(d_buf, req.payload.data(), n * sizeof(float), cudaMemcpyHostToDevice));
        zscore<<<(n + 255) / 256, 256>>>(d_buf, n, (float)mean, inv_std);
        CUDA_OK(cudaMemcpy(req.payload.data(), d_buf, n * sizeof(float), cudaMemcpyDeviceToHost));
        CUDA_OK(cudaFree(d_buf));
        ++served;
    }
    printf("served %d, rejected %d; request 1 first value %.3f\n", served, rejected,
           requests[1].payload[0]);
    return 0;
}
