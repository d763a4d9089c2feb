// case: a training data loader's BatchStager (header, derived from a stream-owning base class) uploads a pinned batch, normalizes it and downloads it asynchronously inside fetch(), which calls the base class's wait() (cudaStreamSynchronize) before returning the pinned pointer that main then reads; the raw buffer is refilled only after fetch() has waited.
// expect: none
#include "batch_pipeline.cuh"
#include <cmath>

static void decode_jpeg_batch(uint8_t* dst, size_t n, int batch_index) {
    for (size_t i = 0; i < n; ++i) dst[i] = static_cast<uint8_t>((i * 31 + batch_index * 7) & 0xff);
}

int main() {
    constexpr size_t kBatch = 64, kPixels = 3 * 224 * 224;
    BatchStager stager(kBatch * kPixels);

    double running_mean = 0.0;
    for (int b = 0; b < 10; ++b) {
        decode_jpeg_batch(stager.raw(), stager.size(), b);
        const float* x = stager.fetch(120.f, 58.f);
        double sum = 0.0;
        for (size_t i = 0; i < stager.size(); ++i) sum += x[i];
        running_mean += (sum / stager.size() - running_mean) / (b + 1);
    }
    std::printf("mean normalized activation over 10 batches: %.4f\n", running_mean);
    return std::isfinite(running_mean) ? 0 : 1;
}
