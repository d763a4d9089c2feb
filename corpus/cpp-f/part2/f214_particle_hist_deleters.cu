// case: A calorimeter-hit histogrammer hands a cudaMallocHost buffer to a std::shared_ptr whose lambda deleter calls cudaFree, and releases its cudaMalloc'd bin array through a RELEASE_BINS macro that expands to cudaFreeHost.
// expect: mismatched_free=2
#include <cuda_runtime.h>
#include <cstdio>
#include <memory>
#include <vector>

#define CHECK_CUDA(x) do { cudaError_t e = (x); if (e != cudaSuccess) \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); } while (0)
#define RELEASE_BINS(p) CHECK_CUDA(cudaFreeHost(p))

struct CaloHit {
    float energy;   // GeV
    float eta;
    float phi;
    int cell_id;
};

__global__ void fill_eta_hist(const CaloHit* __restrict__ hits, int n, unsigned* bins,
                              int n_bins, float eta_min, float eta_max, float e_cut) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    CaloHit h = hits[i];
    if (h.energy < e_cut) return;
    int b = int((h.eta - eta_min) / (eta_max - eta_min) * n_bins);
    if (b >= 0 && b < n_bins) atomicAdd(&bins[b], 1u);
}

using HostHits = std::shared_ptr<CaloHit>;

static HostHits make_host_hits(size_t n) {
    CaloHit* raw = nullptr;
    CHECK_CUDA(cudaMallocHost(&raw, n * sizeof(CaloHit)));
    return HostHits(raw, [](CaloHit* p) { CHECK_CUDA(cudaFree(p)); });
}

class EtaHistogrammer {
public:
    explicit EtaHistogrammer(int n_bins) : n_bins_(n_bins) {
        CHECK_CUDA(cudaStreamCreate(&stream_));
        CHECK_CUDA(cudaMalloc(&d_bins_, n_bins * sizeof(unsigned)));
    }
    ~EtaHistogrammer() {
        cudaStreamSynchronize(stream_);
        RELEASE_BINS(d_bins_);
        cudaStreamDestroy(stream_);
    }

    std::vector<unsigned> run(const HostHits& hits, size_t n, CaloHit* d_hits) {
        CHECK_CUDA(cudaMemsetAsync(d_bins_, 0, n_bins_ * sizeof(unsigned), stream_));
        CHECK_CUDA(cudaMemcpyAsync(d_hits, hits.get(), n * sizeof(CaloHit), cudaMemcpyHostToDevice, stream_));
        fill_eta_hist<<<int((n + 255) / 256), 256, 0, stream_>>>(d_hits, int(n), d_bins_, n_bins_, -4.9f, 4.9f, 0.5f);
        std::vector<unsigned> out(n_bins_);
        CHECK_CUDA(cudaStreamSynchronize(stream_));
        CHECK_CUDA(cudaMemcpy(out.data(), d_bins_, n_bins_ * sizeof(unsigned), cudaMemcpyDeviceToHost));
        return out;
    }

private:
    int n_bins_;
    cudaStream_t stream_;
    unsigned* d_bins_ = nullptr;
};

int main() {
    const size_t n = 1 << 22;
    CaloHit* d_hits = nullptr;
    CHECK_CUDA(cudaMalloc(&d_hits, n * sizeof(CaloHit)));
    std::vector<unsigned> hist;
    {
        HostHits hits = make_host_hits(n);
        for (size_t i = 0; i < n; ++i)
            hits.get()[i] = {0.1f * (i % 50), -4.9f + 9.8f * float(i % 997) / 997.f, 0.f, int(i)};
        EtaHistogrammer h(98);
        hist = h.run(hits, n, d_hits);
    }
    unsigned total = 0;
    for (unsigned c : hist) total += c;
    printf("%u hits above threshold in %zu bins\n", total, hist.size());
    CHECK_CUDA(cudaFree(d_hits));
    return 0;
}
