// case: genomics GC-content pass whose ReadBatch class (read_batch.h) allocates its base buffer with cudaHostAlloc but its destructor releases it with cudaFree; copies, kernel and readback are otherwise correctly ordered.
// expect: mismatched_free=1
#include "read_batch.h"
#include <cstdio>

__global__ void gc_count(const uint8_t* bases, size_t read_len, size_t n_reads, uint32_t* gc) {
    size_t r = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (r >= n_reads) return;
    const uint8_t* p = bases + r * read_len;
    uint32_t c = 0;
    for (size_t i = 0; i < read_len; ++i) c += (p[i] == 'G' || p[i] == 'C');
    gc[r] = c;
}

static double gc_fraction(ReadBatch& batch, cudaStream_t stream) {
    cudaMemcpyAsync(batch.device(), batch.host(), batch.bytes(), cudaMemcpyHostToDevice, stream);
    unsigned blocks = unsigned((batch.count() + 127) / 128);
    gc_count<<<blocks, 128, 0, stream>>>(batch.device(), batch.read_len(), batch.count(), batch.device_gc());
    cudaMemcpyAsync(batch.host_gc(), batch.device_gc(), batch.count() * sizeof(uint32_t),
                    cudaMemcpyDeviceToHost, stream);
    cudaStreamSynchronize(stream);
    unsigned long long gc = 0;
    for (size_t i = 0; i < batch.count(); ++i) gc += batch.host_gc()[i];
    return double(gc) / double(batch.count() * batch.read_len());
}

int main() {
    cudaStream_t stream;
    cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
    std::vector<std::string> reads;
    for (int i = 0; i < 50000; ++i) reads.push_back(i % 3 ? "ACGTGGCCAATTGCGC" : "ATATATATGCGCATAT");
    {
        ReadBatch batch(65536, 150);
        batch.fill(reads);
        printf("GC fraction: %.4f\n", gc_fraction(batch, stream));
    }
    cudaStreamDestroy(stream);
    return 0;
}
