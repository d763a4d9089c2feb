// case: DRACC-style vector add with C globals whose copy of the result back to the host is left out; the host checks its stale array and d_c is freed unread.
// expect: unread_kernel_output=1
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
    cudaDeviceSynchronize();

    int errors = check();
    printf("errors: %d\n", errors);

    cudaFree(d_a);
    cudaFree(d_b);
    cudaFree(d_c); // EXPECT: unread_kernel_output
    free(a);
    free(b);
    free(c);
    return errors != 0;
}
