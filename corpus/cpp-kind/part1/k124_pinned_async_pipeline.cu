// case: a double-buffered image normalisation pipeline with cudaHostAlloc'd pinned buffers and cudaMemcpyAsync on two streams; all copies have the right direction.
// expect: none
#include <cstdio>
#include <cuda_runtime.h>

__global__ void normalize(const unsigned char* in, float* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] / 255.0f - 0.5f;
}

int main() {
    const int frames = 8, pixels = 1920 * 1080 * 3;
    unsigned char* h_frames[2];
    float* h_out[2];
    unsigned char* d_in[2];
    float* d_out[2];
    cudaStream_t stream[2];
    for (int b = 0; b < 2; ++b) {
        cudaHostAlloc(&h_frames[b], pixels, cudaHostAllocDefault);
        cudaHostAlloc(&h_out[b], pixels * sizeof(float), cudaHostAllocDefault);
        cudaMalloc(&d_in[b], pixels);
        cudaMalloc(&d_out[b], pixels * sizeof(float));
        cudaStreamCreate(&stream[b]);
    }

    double checksum = 0.0;
    for (int f = 0; f < frames; ++f) {
        int b = f & 1;
        cudaStreamSynchronize(stream[b]);
        if (f >= 2) checksum += h_out[b][0];
        for (int i = 0; i < pixels; i += 4096) h_frames[b][i] = (unsigned char)(f * 13 + i);
        cudaMemcpyAsync(d_in[b], h_frames[b], pixels, cudaMemcpyHostToDevice, stream[b]);
        normalize<<<(pixels + 255) / 256, 256, 0, stream[b]>>>(d_in[b], d_out[b], pixels);
        cudaMemcpyAsync(h_out[b], d_out[b], pixels * sizeof(float), cudaMemcpyDeviceToHost, stream[b]);
    }
    for (int b = 0; b < 2; ++b) {
        cudaStreamSynchronize(stream[b]);
        checksum += h_out[b][0];
    }
    printf("checksum %f\n", checksum);

    for (int b = 0; b < 2; ++b) {
        cudaStreamDestroy(stream[b]);
        cudaFreeHost(h_frames[b]);
        cudaFreeHost(h_out[b]);
        cudaFree(d_in[b]);
        cudaFree(d_out[b]);
    }
    return 0;
}
