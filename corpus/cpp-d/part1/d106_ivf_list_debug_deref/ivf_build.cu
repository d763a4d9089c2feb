// case: IVF index build that assigns vectors to their nearest centroid on the GPU; a debug-only validator (compiled in the default build, since nothing defines NDEBUG) walks the assignment array through DeviceArray::data(), a cudaMalloc pointer, on the host.
// expect: host_deref_device_ptr=1
#include "device_array.cuh"
#include <cfloat>
#include <random>

__global__ void assign_lists(const float* vecs, const float* centroids, int n, int dim, int nlist,
                             int* assign)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float best = FLT_MAX;
    int best_c = -1;
    for (int c = 0; c < nlist; ++c) {
        float d = 0.f;
        for (int k = 0; k < dim; ++k) {
            float t = vecs[(size_t)i * dim + k] - centroids[(size_t)c * dim + k];
            d += t * t;
        }
        if (d < best) { best = d; best_c = c; }
    }
    assign[i] = best_c;
}

#ifndef NDEBUG
static bool check_assignments(const gpu::DeviceArray<int>& assign, int nlist)
{
    const int* a = assign.data();
    for (size_t i = 0; i < assign.size(); ++i) {
        if (a[i] < 0 || a[i] >= nlist) { // EXPECT: host_deref_device_ptr
            fprintf(stderr, "vector %zu has list %d\n", i, a[i]);
            return false;
        }
    }
    return true;
}
#endif

int main()
{
    const int n = 200000, dim = 64, nlist = 256;
    std::mt19937 rng(42);
    std::normal_distribution<float> dist(0.f, 1.f);
    std::vector<float> h_vecs((size_t)n * dim), h_centroids((size_t)nlist * dim);
    for (auto& v : h_vecs) v = dist(rng);
    for (int c = 0; c < nlist; ++c)
        for (int k = 0; k < dim; ++k) h_centroids[(size_t)c * dim + k] = h_vecs[(size_t)c * 97 * dim + k];

    gpu::DeviceArray<float> d_vecs(h_vecs.size()), d_centroids(h_centroids.size());
    gpu::DeviceArray<int> d_assign(n);
    d_vecs.upload(h_vecs);
    d_centroids.upload(h_centroids);

    assign_lists<<<(n + 127) / 128, 128>>>(d_vecs.data(), d_centroids.data(), n, dim, nlist,
                                           d_assign.data());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

#ifndef NDEBUG
    if (!check_assignments(d_assign, nlist)) return 1;
#endif

    std::vector<int> sizes(nlist, 0);
    for (int l : d_assign.download()) ++sizes[l];
    int largest = 0;
    for (int s : sizes) largest = s > largest ? s : largest;
    printf("ivf: %d lists, largest holds %d vectors\n", nlist, largest);
    return 0;
}
