// case: C-style GPU code for a sparse histogram releases every allocation on every path: a goto-cleanup function frees on each error, a helper returns its buffer to the caller who frees it, a growable buffer is freed before it is reallocated, a workspace lives in a struct released by its destroy function, and fatal errors call exit(); correct.
// expect: none
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#define FATAL_CUDA(call)                                                           \
    do {                                                                           \
        cudaError_t e_ = (call);                                                   \
        if (e_ != cudaSuccess) {                                                   \
            fprintf(stderr, "fatal: %s at %s:%d\n", cudaGetErrorString(e_),        \
                    __FILE__, __LINE__);                                           \
            exit(EXIT_FAILURE);                                                    \
        }                                                                          \
    } while (0)

typedef struct {
    int* d_keys;
    int* d_counts;
    size_t cap;
} Workspace;

__global__ void bucketize(const float* in, int n, int buckets, int* keys) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] = min(max(int(in[i] * buckets), 0), buckets - 1);
}

__global__ void count_keys(const int* keys, int n, int* counts) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&counts[keys[i]], 1);
}

static void workspace_init(Workspace* ws, size_t cap, int buckets) {
    ws->cap = cap;
    FATAL_CUDA(cudaMalloc((void**)&ws->d_keys, cap * sizeof(int)));
    FATAL_CUDA(cudaMalloc((void**)&ws->d_counts, buckets * sizeof(int)));
}

static void workspace_destroy(Workspace* ws) {
    cudaFree(ws->d_keys);
    cudaFree(ws->d_counts);
    ws->d_keys = ws->d_counts = NULL;
}

/* Returns a device buffer holding `n` samples; the caller owns it. */
static float* upload_samples(const float* host, int n) {
    float* d = NULL;
    FATAL_CUDA(cudaMalloc((void**)&d, n * sizeof(float)));
    FATAL_CUDA(cudaMemcpy(d, host, n * sizeof(float), cudaMemcpyHostToDevice));
    return d;
}

static int histogram(const float* h_in, int n, int buckets, int* h_counts) {
    int rc = -1;
    float* d_in = NULL;
    int* d_keys = NULL;
    int* d_counts = NULL;

    if (cudaMalloc((void**)&d_in, n * sizeof(float)) != cudaSuccess) goto cleanup;
    if (cudaMalloc((void**)&d_keys, n * sizeof(int)) != cudaSuccess) goto cleanup;
    if (cudaMalloc((void**)&d_counts, buckets * sizeof(int)) != cudaSuccess) goto cleanup;
    if (cudaMemcpy(d_in, h_in, n * sizeof(float), cudaMemcpyHostToDevice) != cudaSuccess) goto cleanup;
    if (cudaMemset(d_counts, 0, buckets * sizeof(int)) != cudaSuccess) goto cleanup;

    bucketize<<<(n + 255) / 256, 256>>>(d_in, n, buckets, d_keys);
    count_keys<<<(n + 255) / 256, 256>>>(d_keys, n, d_counts);
    if (cudaGetLastError() != cudaSuccess) goto cleanup;
    if (cudaMemcpy(h_counts, d_counts, buckets * sizeof(int), cudaMemcpyDeviceToHost) != cudaSuccess) goto cleanup;
    rc = 0;

cleanup:
    cudaFree(d_counts);
    cudaFree(d_keys);
    cudaFree(d_in);
    return rc;
}

int main(void) {
    const int buckets = 64;
    int counts[64];
    int sizes[3] = {1000, 250000, 4000000};
    float* h = (float*)malloc(sizes[2] * sizeof(float));
    if (!h) return 1;
    for (int i = 0; i < sizes[2]; ++i) h[i] = (float)((i * 2654435761u) % 1000u) / 1000.0f;

    if (histogram(h, sizes[1], buckets, counts) != 0) {
        free(h);
        return 1;
    }
    printf("goto-cleanup histogram: bucket 0 = %d\n", counts[0]);

    /* Growable staging buffer: freed before each reallocation. */
    float* d_grow = NULL;
    size_t grow_cap = 0;
    Workspace ws;
    workspace_init(&ws, sizes[2], buckets);
    for (int k = 0; k < 3; ++k) {
        size_t need = (size_t)sizes[k];
        if (need > grow_cap) {
            FATAL_CUDA(cudaFree(d_grow));
            FATAL_CUDA(cudaMalloc((void**)&d_grow, need * sizeof(float)));
            grow_cap = need;
        }
        FATAL_CUDA(cudaMemcpy(d_grow, h, need * sizeof(float), cudaMemcpyHostToDevice));
        FATAL_CUDA(cudaMemset(ws.d_counts, 0, buckets * sizeof(int)));
        bucketize<<<(sizes[k] + 255) / 256, 256>>>(d_grow, sizes[k], buckets, ws.d_keys);
        count_keys<<<(sizes[k] + 255) / 256, 256>>>(ws.d_keys, sizes[k], ws.d_counts);
        FATAL_CUDA(cudaMemcpy(counts, ws.d_counts, sizeof(counts), cudaMemcpyDeviceToHost));
        printf("n=%d bucket 63 = %d\n", sizes[k], counts[63]);
    }

    float* d_samples = upload_samples(h, sizes[0]);
    bucketize<<<(sizes[0] + 255) / 256, 256>>>(d_samples, sizes[0], buckets, ws.d_keys);
    FATAL_CUDA(cudaDeviceSynchronize());
    FATAL_CUDA(cudaFree(d_samples));

    FATAL_CUDA(cudaFree(d_grow));
    workspace_destroy(&ws);
    free(h);
    return 0;
}
