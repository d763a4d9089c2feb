// case: a stream-ordered word-length histogram: the counts buffer from cudaMallocAsync is cleared with cudaMemsetAsync before the counting kernel and a read-only normalisation kernel use it.
// expect: none
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e)); std::exit(1); } } while (0)

constexpr int kMaxLen = 32;
constexpr int kTextBytes = 1 << 22;

__global__ void word_lengths(const char* text, int n, unsigned int* counts)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n || text[i] == ' ') return;
    if (i > 0 && text[i - 1] != ' ') return;
    int len = 0;
    while (i + len < n && text[i + len] != ' ') ++len;
    atomicAdd(&counts[min(len, kMaxLen - 1)], 1u);
}

__global__ void normalise(const unsigned int* counts, float* freq)
{
    __shared__ unsigned int total;
    if (threadIdx.x == 0) {
        total = 0;
        for (int k = 0; k < kMaxLen; ++k) total += counts[k];
    }
    __syncthreads();
    freq[threadIdx.x] = total ? float(counts[threadIdx.x]) / total : 0.f;
}

int main()
{
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

    char* h_text;
    float* h_freq;
    CK(cudaMallocHost(&h_text, kTextBytes));
    CK(cudaMallocHost(&h_freq, kMaxLen * sizeof(float)));
    for (int i = 0; i < kTextBytes; ++i) h_text[i] = (i % 7 == 6 || i % 11 == 10) ? ' ' : 'a';

    char* d_text;
    unsigned int* d_counts;
    float* d_freq;
    CK(cudaMallocAsync(&d_text, kTextBytes, s));
    CK(cudaMallocAsync(&d_counts, kMaxLen * sizeof(unsigned int), s));
    CK(cudaMallocAsync(&d_freq, kMaxLen * sizeof(float), s));

    CK(cudaMemcpyAsync(d_text, h_text, kTextBytes, cudaMemcpyHostToDevice, s));
    CK(cudaMemsetAsync(d_counts, 0, kMaxLen * sizeof(unsigned int), s));
    word_lengths<<<(kTextBytes + 255) / 256, 256, 0, s>>>(d_text, kTextBytes, d_counts);
    normalise<<<1, kMaxLen, 0, s>>>(d_counts, d_freq);
    CK(cudaMemcpyAsync(h_freq, d_freq, kMaxLen * sizeof(float), cudaMemcpyDeviceToHost, s));

    CK(cudaFreeAsync(d_text, s));
    CK(cudaFreeAsync(d_counts, s));
    CK(cudaFreeAsync(d_freq, s));
    CK(cudaStreamSynchronize(s));

    for (int k = 1; k < 12; ++k) std::printf("len %2d: %.4f\n", k, h_freq[k]);

    CK(cudaFreeHost(h_text));
    CK(cudaFreeHost(h_freq));
    CK(cudaStreamDestroy(s));
    return 0;
}
