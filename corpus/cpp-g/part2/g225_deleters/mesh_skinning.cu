// case: a mesh-skinning pass owns its buffers through smart pointers, but wraps cudaMallocHost memory in the device_unique_ptr whose DeviceDeleter calls cudaFree, and gives a shared_ptr over cudaHostAlloc'd bone matrices a lambda deleter that calls std::free.
// expect: mismatched_free=2
#include "cuda_memory.h"
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define SKIN_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) throw std::runtime_error(cudaGetErrorString(e_));   \
    } while (0)

struct Mat34 { float m[12]; };

__global__ void skin_vertices(const float4* rest, const int* bone, const Mat34* bones, float4* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const Mat34& M = bones[bone[i]];
    float4 v = rest[i];
    out[i] = make_float4(M.m[0] * v.x + M.m[1] * v.y + M.m[2] * v.z + M.m[3],
                         M.m[4] * v.x + M.m[5] * v.y + M.m[6] * v.z + M.m[7],
                         M.m[8] * v.x + M.m[9] * v.y + M.m[10] * v.z + M.m[11], 1.f);
}

int main() {
    const int verts = 1 << 20, nbones = 128;
    cudaStream_t stream;
    SKIN_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
    {
        auto d_rest = rt::make_device<float4>(verts);
        auto d_bone = rt::make_device<int>(verts);
        auto d_bones = rt::make_device<Mat34>(nbones);
        auto d_out = rt::make_device<float4>(verts);
        rt::device_unique_ptr<float4> h_out(rt::alloc_pinned_raw<float4>(verts));

        Mat34* raw_bones = nullptr;
        SKIN_CHECK(cudaHostAlloc(reinterpret_cast<void**>(&raw_bones), nbones * sizeof(Mat34), cudaHostAllocPortable));
        std::shared_ptr<Mat34> h_bones(raw_bones, [](Mat34* p) { std::free(p); });

        for (int b = 0; b < nbones; ++b)
            for (int k = 0; k < 12; ++k) h_bones.get()[b].m[k] = (k % 5 == 0) ? 1.f : 0.f;

        SKIN_CHECK(cudaMemsetAsync(d_rest.get(), 0, verts * sizeof(float4), stream));
        SKIN_CHECK(cudaMemsetAsync(d_bone.get(), 0, verts * sizeof(int), stream));
        SKIN_CHECK(cudaMemcpyAsync(d_bones.get(), h_bones.get(), nbones * sizeof(Mat34), cudaMemcpyHostToDevice, stream));
        skin_vertices<<<(verts + 255) / 256, 256, 0, stream>>>(d_rest.get(), d_bone.get(), d_bones.get(), d_out.get(), verts);
        SKIN_CHECK(cudaMemcpyAsync(h_out.get(), d_out.get(), verts * sizeof(float4), cudaMemcpyDeviceToHost, stream));
        SKIN_CHECK(cudaStreamSynchronize(stream));

        std::printf("v0 = (%f, %f, %f)\n", h_out[0].x, h_out[0].y, h_out[0].z);
    }
    SKIN_CHECK(cudaStreamDestroy(stream));
    return 0;
}
