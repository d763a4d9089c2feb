// case: A BVH builder class reads its node count correctly with cudaMemcpy, but its dump() method walks the cudaMalloc'd node array (member d_nodes_) directly on the host.
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA_CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    std::fprintf(stderr, "%s -> %s\n", #x, cudaGetErrorString(e_)); std::exit(1); } } while (0)

struct Aabb { float3 lo, hi; };
struct BvhNode { Aabb box; int left, right; };

__global__ void build_leaves(const float3* centroids, int n, BvhNode* nodes, int* counter)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float3 c = centroids[i];
    BvhNode leaf;
    leaf.box.lo = make_float3(c.x - 0.5f, c.y - 0.5f, c.z - 0.5f);
    leaf.box.hi = make_float3(c.x + 0.5f, c.y + 0.5f, c.z + 0.5f);
    leaf.left = leaf.right = -1;
    nodes[atomicAdd(counter, 1)] = leaf;
}

class BvhBuilder {
public:
    explicit BvhBuilder(int max_prims) : max_nodes_(2 * max_prims) {
        CUDA_CHECK(cudaMalloc(&d_nodes_, max_nodes_ * sizeof(BvhNode)));
        CUDA_CHECK(cudaMalloc(&d_counter_, sizeof(int)));
    }
    ~BvhBuilder() {
        cudaFree(d_counter_);
        cudaFree(d_nodes_);
    }

    void build(const float3* d_centroids, int n) {
        CUDA_CHECK(cudaMemset(d_counter_, 0, sizeof(int)));
        build_leaves<<<(n + 127) / 128, 128>>>(d_centroids, n, d_nodes_, d_counter_);
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
    }

    int node_count() const {
        int n = 0;
        CUDA_CHECK(cudaMemcpy(&n, d_counter_, sizeof(int), cudaMemcpyDeviceToHost));
        return n;
    }

    void dump(FILE* f, int limit) const {
        for (int i = 0; i < limit; ++i) {
            BvhNode nd = d_nodes_[i]; // EXPECT: host_deref_device_ptr
            std::fprintf(f, "node %d: [%g %g %g] - [%g %g %g] children %d %d\n", i,
                         nd.box.lo.x, nd.box.lo.y, nd.box.lo.z, nd.box.hi.x, nd.box.hi.y, nd.box.hi.z,
                         nd.left, nd.right);
        }
    }

private:
    int max_nodes_;
    BvhNode* d_nodes_ = nullptr;
    int* d_counter_ = nullptr;
};

int main()
{
    const int prims = 1 << 15;
    std::vector<float3> centroids(prims);
    for (int i = 0; i < prims; ++i) centroids[i] = make_float3((float)(i % 32), (float)(i / 32 % 32), (float)(i / 1024));

    float3* d_centroids = nullptr;
    CUDA_CHECK(cudaMalloc(&d_centroids, prims * sizeof(float3)));
    CUDA_CHECK(cudaMemcpy(d_centroids, centroids.data(), prims * sizeof(float3), cudaMemcpyHostToDevice));

    BvhBuilder bvh(prims);
    bvh.build(d_centroids, prims);
    int count = bvh.node_count();
    std::printf("%d nodes built\n", count);
    bvh.dump(stdout, count < 4 ? count : 4);

    CUDA_CHECK(cudaFree(d_centroids));
    return 0;
}
