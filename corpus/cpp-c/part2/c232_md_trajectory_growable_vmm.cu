// case: a molecular-dynamics trajectory recorder grows a VMM range chunk by chunk, granting access to each new chunk before the frame copy writes into it, and tears down with unmap, release, then address free after synchronizing
// expect: none
#include <cuda.h>
#include <cuda_runtime.h>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CU_TRY(x)                                                                          \
    do {                                                                                   \
        CUresult st_ = (x);                                                                \
        if (st_ != CUDA_SUCCESS) {                                                         \
            const char* s_ = nullptr;                                                      \
            cuGetErrorString(st_, &s_);                                                    \
            std::fprintf(stderr, "traj: %s: %s\n", #x, s_ ? s_ : "?");                     \
            std::exit(1);                                                                  \
        }                                                                                  \
    } while (0)

class TrajectoryStore {
public:
    TrajectoryStore(int device, size_t max_bytes) {
        prop_.type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop_.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop_.location.id = device;
        CU_TRY(cuMemGetAllocationGranularity(&chunk_, &prop_, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
        chunk_ *= 16;
        reserved_ = (max_bytes + chunk_ - 1) / chunk_ * chunk_;
        CU_TRY(cuMemAddressReserve(&base_, reserved_, 0, 0, 0));
    }

    ~TrajectoryStore() {
        for (size_t i = handles_.size(); i-- > 0;) {
            CU_TRY(cuMemUnmap(base_ + i * chunk_, chunk_));
            CU_TRY(cuMemRelease(handles_[i]));
        }
        CU_TRY(cuMemAddressFree(base_, reserved_));
    }

    // Makes sure [0, bytes) is backed and accessible.
    void ensure(size_t bytes) {
        while (mapped_ < bytes) {
            if (mapped_ + chunk_ > reserved_) { std::fprintf(stderr, "trajectory full\n"); std::exit(1); }
            CUmemGenericAllocationHandle h;
            CU_TRY(cuMemCreate(&h, chunk_, &prop_, 0));
            CU_TRY(cuMemMap(base_ + mapped_, chunk_, 0, h, 0));
            CUmemAccessDesc acc = {};
            acc.location = prop_.location;
            acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
            CU_TRY(cuMemSetAccess(base_ + mapped_, chunk_, &acc, 1));
            handles_.push_back(h);
            mapped_ += chunk_;
        }
    }

    void append(CUdeviceptr frame, size_t frame_bytes, CUstream s) {
        ensure(used_ + frame_bytes);
        CU_TRY(cuMemcpyDtoDAsync(base_ + used_, frame, frame_bytes, s));
        used_ += frame_bytes;
    }

    size_t used() const { return used_; }

private:
    CUmemAllocationProp prop_ = {};
    CUdeviceptr base_ = 0;
    size_t chunk_ = 0, reserved_ = 0, mapped_ = 0, used_ = 0;
    std::vector<CUmemGenericAllocationHandle> handles_;
};

__global__ void leapfrog(float4* x, float4* v, int n, float dt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    v[i].x -= dt * x[i].x; v[i].y -= dt * x[i].y; v[i].z -= dt * x[i].z;   // harmonic well
    x[i].x += dt * v[i].x; x[i].y += dt * v[i].y; x[i].z += dt * v[i].z;
}

int main() {
    CU_TRY(cuInit(0));
    CUdevice dev; CU_TRY(cuDeviceGet(&dev, 0));
    CUcontext ctx; CU_TRY(cuDevicePrimaryCtxRetain(&ctx, dev)); CU_TRY(cuCtxSetCurrent(ctx));

    const int atoms = 200000, frames = 64;
    const size_t frame_bytes = atoms * sizeof(float4);
    float4 *x = nullptr, *v = nullptr;
    cudaMalloc(&x, frame_bytes);
    cudaMalloc(&v, frame_bytes);
    cudaMemset(x, 0, frame_bytes);
    cudaMemset(v, 0, frame_bytes);
    cudaDeviceSynchronize();

    CUstream s;
    CU_TRY(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
    {
        TrajectoryStore traj(0, frames * frame_bytes);
        for (int f = 0; f < frames; ++f) {
            for (int k = 0; k < 10; ++k) leapfrog<<<(atoms + 255) / 256, 256, 0, s>>>(x, v, atoms, 1e-3f);
            traj.append(reinterpret_cast<CUdeviceptr>(x), frame_bytes, s);
        }
        CU_TRY(cuStreamSynchronize(s));
        std::printf("recorded %zu bytes of trajectory\n", traj.used());
    }
    CU_TRY(cuStreamDestroy(s));
    cudaFree(v);
    cudaFree(x);
    return 0;
}
