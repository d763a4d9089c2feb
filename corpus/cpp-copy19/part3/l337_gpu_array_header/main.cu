// case: a k-means assignment step keeps points, centroids and labels in gpu::Array objects from its header; the move-only class frees in its destructor, including the array replaced by move assignment
// expect: none
#include <cfloat>
#include <vector>
#include "gpu_array.cuh"

constexpr int kPoints = 1 << 18;
constexpr int kDim = 8;
constexpr int kClusters = 16;

__global__ void assign(const float* pts, const float* cents, int* labels, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX;
    int arg = 0;
    for (int c = 0; c < k; ++c) {
        float d = 0.f;
        for (int j = 0; j < kDim; ++j) {
            float t = pts[i * kDim + j] - cents[c * kDim + j];
            d += t * t;
        }
        if (d < best) { best = d; arg = c; }
    }
    labels[i] = arg;
}

static gpu::Array<float> upload(const std::vector<float>& h) {
    gpu::Array<float> a(h.size());
    a.copy_from_host(h.data());
    return a;
}

int main() {
    std::vector<float> pts(kPoints * kDim), cents(kClusters * kDim);
    for (size_t i = 0; i < pts.size(); ++i) pts[i] = (float)((i * 37) % 101) / 101.f;
    for (size_t i = 0; i < cents.size(); ++i) cents[i] = (float)(i % kDim) / kDim;

    gpu::Array<float> d_pts = upload(pts);
    gpu::Array<float> d_cents(kClusters * kDim);
    d_cents = upload(cents);
    gpu::Array<int> d_labels(kPoints);

    assign<<<(kPoints + 255) / 256, 256>>>(d_pts.data(), d_cents.data(), d_labels.data(),
                                           kPoints, kClusters);
    gpu::check(cudaGetLastError(), "assign");

    std::vector<int> labels(kPoints);
    d_labels.copy_to_host(labels.data());
    std::vector<int> counts(kClusters, 0);
    for (int l : labels) counts[l]++;
    for (int c = 0; c < kClusters; ++c) printf("cluster %2d: %d points\n", c, counts[c]);
    return 0;
}
