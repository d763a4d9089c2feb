// case: With REGISTER_HOST_BUFFERS defined in the file, the malloc'd frame buffer is page-locked with cudaHostRegister before the async copies, waited for with cudaStreamSynchronize before the host reads it, then unregistered and freed with free().
// expect: none
#include <stdio.h>
#include <stdlib.h>
#include <cuda_runtime.h>

#define REGISTER_HOST_BUFFERS 1
#define WIDTH   4096
#define HEIGHT  2048
#define CHECK(call) { cudaError_t e = call; if (e != cudaSuccess) { \
    fprintf(stderr, "%s(%d): %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } }

__global__ void gamma_correct(unsigned char *px, int n, float g)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) px[i] = (unsigned char)(255.0f * __powf(px[i] / 255.0f, g));
}

unsigned char *frame;
unsigned char *d_frame;

int main(int argc, char **argv)
{
    int n = WIDTH * HEIGHT * 4;
    cudaStream_t stream;

    frame = (unsigned char *)malloc(n);
    for (int i = 0; i < n; i++) frame[i] = (unsigned char)(i * 7);

#ifdef REGISTER_HOST_BUFFERS
    CHECK(cudaHostRegister(frame, n, cudaHostRegisterDefault));
#endif
    CHECK(cudaMalloc((void **)&d_frame, n));
    CHECK(cudaStreamCreate(&stream));

    CHECK(cudaMemcpyAsync(d_frame, frame, n, cudaMemcpyHostToDevice, stream));
    gamma_correct<<<(n + 255) / 256, 256, 0, stream>>>(d_frame, n, 2.2f);
    CHECK(cudaMemcpyAsync(frame, d_frame, n, cudaMemcpyDeviceToHost, stream));
    CHECK(cudaStreamSynchronize(stream));

    unsigned long hist[4] = {0, 0, 0, 0};
    for (int i = 0; i < n; i++) hist[frame[i] >> 6]++;
    printf("quartiles: %lu %lu %lu %lu\n", hist[0], hist[1], hist[2], hist[3]);

    CHECK(cudaStreamDestroy(stream));
    CHECK(cudaFree(d_frame));
#ifdef REGISTER_HOST_BUFFERS
    CHECK(cudaHostUnregister(frame));
#endif
    free(frame);
    return 0;
}
