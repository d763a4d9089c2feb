// case: stream compaction whose file-static flag buffer d_flags is never allocated: the clearing memset, the predicate kernel that writes it and the flag readback all get null
// expect: unallocated_pointer=3
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define NELEM (1 << 18)
#define THRESH 0.75f

static float *d_values;
static int *d_flags;
static int *d_count;

#define CHECK(call)                                                         \
    if ((call) != cudaSuccess) {                                            \
        fprintf(stderr, "CUDA call failed at %s:%d\n", __FILE__, __LINE__); \
        exit(EXIT_FAILURE);                                                 \
    }

__global__ void mark(const float *v, int *flags, int *count, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int keep = v[i] > THRESH;
        flags[i] = keep;
        if (keep) atomicAdd(count, 1);
    }
}

static void setup(float *h_values)
{
    CHECK(cudaMalloc((void **)&d_values, NELEM * sizeof(float)));
    CHECK(cudaMalloc((void **)&d_count, sizeof(int)));
    CHECK(cudaMemcpy(d_values, h_values, NELEM * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(d_count, 0, sizeof(int)));
}

int main(void)
{
    float *h_values = (float *)malloc(NELEM * sizeof(float));
    int *h_flags = (int *)malloc(NELEM * sizeof(int));
    for (int i = 0; i < NELEM; ++i) h_values[i] = (float)((i * 40503u) & 0xffff) / 65535.0f;

    setup(h_values);
    CHECK(cudaMemset(d_flags, 0, NELEM * sizeof(int))); // EXPECT: unallocated_pointer

    mark<<<NELEM / 256, 256>>>(d_values, d_flags, d_count, NELEM); // EXPECT: unallocated_pointer
    CHECK(cudaGetLastError());

    int kept = 0;
    CHECK(cudaMemcpy(&kept, d_count, sizeof(int), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(h_flags, d_flags, NELEM * sizeof(int), cudaMemcpyDeviceToHost)); // EXPECT: unallocated_pointer

    int check = 0;
    for (int i = 0; i < NELEM; ++i) check += h_flags[i];
    printf("kept %d values (flags say %d)\n", kept, check);

    cudaFree(d_values);
    cudaFree(d_flags);
    cudaFree(d_count);
    free(h_values);
    free(h_flags);
    return 0;
}
