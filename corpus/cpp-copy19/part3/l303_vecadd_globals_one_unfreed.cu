// case: a C-style vector addition with global device pointers copies the sum back and frees two of its three device arrays; d_b is still held by a global when main returns
// expect: device_memory_leak=1
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 1048576
#define THREADS 256

int a[N];
int b[N];
int c[N];

int *d_a;
int *d_b;
int *d_c;

__global__ void add(const int *x, const int *y, int *z)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) {
        z[i] = x[i] + y[i];
    }
}

void init(void)
{
    for (int i = 0; i < N; i++) {
        a[i] = i;
        b[i] = 2 * i;
        c[i] = 0;
    }
}

int check(void)
{
    int errors = 0;
    for (int i = 0; i < N; i++) {
        if (c[i] != 3 * i) {
            errors++;
        }
    }
    return errors;
}

int main(void)
{
    init();

    cudaMalloc((void **)&d_a, N * sizeof(int));
    cudaMalloc((void **)&d_b, N * sizeof(int)); // EXPECT: device_memory_leak
    cudaMalloc((void **)&d_c, N * sizeof(int));

    cudaMemcpy(d_a, a, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, N * sizeof(int), cudaMemcpyHostToDevice);

    add<<<(N + THREADS - 1) / THREADS, THREADS>>>(d_a, d_b, d_c);

    cudaMemcpy(c, d_c, N * sizeof(int), cudaMemcpyDeviceToHost);

    cudaFree(d_a);
    cudaFree(d_c);

    int errors = check();
    if (errors) {
        printf("%d errors\n", errors);
    } else {
        printf("add: passed\n");
    }
    return 0;
}
