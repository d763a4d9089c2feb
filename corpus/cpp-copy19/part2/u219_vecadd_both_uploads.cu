// case: DRACC-style vector add with C globals where both inputs are copied to the device before the kernel reads them and the sum is copied back.
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define N 4096
#define THREADS 256

int *a;
int *b;
int *c;
int *d_a;
int *d_b;
int *d_c;

__global__ void vec_add(const int *x, const int *y, int *z, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
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
    a = (int *)malloc(N * sizeof(int));
    b = (int *)malloc(N * sizeof(int));
    c = (int *)malloc(N * sizeof(int));
    init();

    cudaMalloc((void **)&d_a, N * sizeof(int));
    cudaMalloc((void **)&d_b, N * sizeof(int));
    cudaMalloc((void **)&d_c, N * sizeof(int));

    cudaMemcpy(d_a, a, N * sizeof(int), cudaMemcpyHostToDevice);
    cudaMemcpy(d_b, b, N * sizeof(int), cudaMemcpyHostToDevice);

    vec_add<<<N / THREADS, THREADS>>>(d_a, d_b, d_c, N);

    cudaMemcpy(c, d_c, N * sizeof(int), cudaMemcpyDeviceToHost);

    int errors = check();
    printf("errors: %d\n", errors);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c);
    free(a);
    free(b);
    free(c);
    return errors != 0;
}
