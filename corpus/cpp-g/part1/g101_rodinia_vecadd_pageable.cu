// case: Rodinia-style vector add that stages two malloc'd inputs with cudaMemcpyAsync on a stream (PINNED is not defined, so both host inputs are pageable); the readback goes to cudaMallocHost memory after a stream sync.
// expect: pageable_async_copy=2
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NUM_ELEMS   (1 << 22)
#define BLOCK_SIZE  256
/* #define PINNED */

#define CHECK(call)                                                        \
    do {                                                                   \
        cudaError_t err_ = (call);                                         \
        if (err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__,             \
                    cudaGetErrorString(err_));                             \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        c[i] = a[i] + b[i];
}

float *h_a, *h_b, *h_c;
float *d_a, *d_b, *d_c;

static void init_host(size_t bytes)
{
#ifdef PINNED
    CHECK(cudaMallocHost((void **)&h_a, bytes));
    CHECK(cudaMallocHost((void **)&h_b, bytes));
#else
    h_a = (float *)malloc(bytes);
    h_b = (float *)malloc(bytes);
#endif
    CHECK(cudaMallocHost((void **)&h_c, bytes));
    for (int i = 0; i < NUM_ELEMS; i++) {
        h_a[i] = (float)i;
        h_b[i] = 2.0f * i;
    }
}

static void free_host(void)
{
#ifdef PINNED
    cudaFreeHost(h_a);
    cudaFreeHost(h_b);
#else
    free(h_a);
    free(h_b);
#endif
    cudaFreeHost(h_c);
}

int main(int argc, char **argv)
{
    size_t bytes = NUM_ELEMS * sizeof(float);
    cudaStream_t stream;
    int errors = 0;

    init_host(bytes);
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaMalloc((void **)&d_a, bytes));
    CHECK(cudaMalloc((void **)&d_b, bytes));
    CHECK(cudaMalloc((void **)&d_c, bytes));

    CHECK(cudaMemcpyAsync(d_a, h_a, bytes, cudaMemcpyHostToDevice, stream));
    CHECK(cudaMemcpyAsync(d_b, h_b, bytes, cudaMemcpyHostToDevice, stream));

    int grid = (NUM_ELEMS + BLOCK_SIZE - 1) / BLOCK_SIZE;
    vec_add<<<grid, BLOCK_SIZE, 0, stream>>>(d_a, d_b, d_c, NUM_ELEMS);
    CHECK(cudaGetLastError());

    CHECK(cudaMemcpyAsync(h_c, d_c, bytes, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    for (int i = 0; i < NUM_ELEMS; i++) {
        if (h_c[i] != 3.0f * i)
            errors++;
    }
    printf("vec_add: %d errors\n", errors);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    cudaStreamDestroy(stream);
    free_host();
    return errors ? 1 : 0;
}
