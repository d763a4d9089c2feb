// case: OCR batch pipeline with separate upload and download streams: the device-to-host copy of the recognized glyph ids runs on download_, but the host synchronizes upload_ before reading them
// expect: missing_sync=1
#include <cuda_runtime.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call)                                                     \
    do {                                                                     \
        cudaError_t err_ = (call);                                           \
        if (err_ != cudaSuccess) {                                           \
            std::fprintf(stderr, "CUDA error %s at %s:%d\n",                 \
                         cudaGetErrorString(err_), __FILE__, __LINE__);      \
            std::exit(EXIT_FAILURE);                                         \
        }                                                                    \
    } while (0)

__global__ void classify_glyphs(const uint8_t* patches, int patch_px, int glyphs, int* ids) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= glyphs) return;
    unsigned int ink = 0;
    for (int p = 0; p < patch_px; ++p) ink += patches[static_cast<size_t>(g) * patch_px + p] > 128;
    ids[g] = static_cast<int>(ink % 94) + 33;
}

class OcrBatch {
public:
    OcrBatch(int glyphs, int patch_px) : glyphs_(glyphs), patch_px_(patch_px) {
        CUDA_CHECK(cudaStreamCreateWithFlags(&upload_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaStreamCreateWithFlags(&download_, cudaStreamNonBlocking));
        CUDA_CHECK(cudaEventCreateWithFlags(&classified_, cudaEventDisableTiming));
        size_t patch_bytes = static_cast<size_t>(glyphs_) * patch_px_;
        CUDA_CHECK(cudaMallocHost(&h_patches_, patch_bytes));
        CUDA_CHECK(cudaMallocHost(&h_ids_, glyphs_ * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d_patches_, patch_bytes));
        CUDA_CHECK(cudaMalloc(&d_ids_, glyphs_ * sizeof(int)));
    }
    ~OcrBatch() {
        cudaDeviceSynchronize();
        cudaFree(d_ids_);
        cudaFree(d_patches_);
        cudaFreeHost(h_ids_);
        cudaFreeHost(h_patches_);
        cudaEventDestroy(classified_);
        cudaStreamDestroy(download_);
        cudaStreamDestroy(upload_);
    }

    uint8_t* patches() { return h_patches_; }

    int count_char(char c) {
        CUDA_CHECK(cudaMemcpyAsync(d_patches_, h_patches_, static_cast<size_t>(glyphs_) * patch_px_, cudaMemcpyHostToDevice, upload_));
        classify_glyphs<<<(glyphs_ + 127) / 128, 128, 0, upload_>>>(d_patches_, patch_px_, glyphs_, d_ids_);
        CUDA_CHECK(cudaEventRecord(classified_, upload_));
        CUDA_CHECK(cudaStreamWaitEvent(download_, classified_, 0));
        CUDA_CHECK(cudaMemcpyAsync(h_ids_, d_ids_, glyphs_ * sizeof(int), cudaMemcpyDeviceToHost, download_));
        CUDA_CHECK(cudaStreamSynchronize(upload_));

        int hits = 0;
        for (int g = 0; g < glyphs_; ++g)
            if (h_ids_[g] == c) ++hits; // EXPECT: missing_sync
        return hits;
    }

private:
    int glyphs_, patch_px_;
    cudaStream_t upload_ = nullptr, download_ = nullptr;
    cudaEvent_t classified_ = nullptr;
    uint8_t* h_patches_ = nullptr;
    int* h_ids_ = nullptr;
    uint8_t* d_patches_ = nullptr;
    int* d_ids_ = nullptr;
};

int main() {
    OcrBatch batch(1 << 16, 32 * 32);
    uint8_t* p = batch.patches();
    for (size_t i = 0; i < size_t(1 << 16) * 1024; ++i) p[i] = static_cast<uint8_t>((i * 13) & 0xff);
    std::printf("'e' appears %d times\n", batch.count_char('e'));
    return 0;
}
