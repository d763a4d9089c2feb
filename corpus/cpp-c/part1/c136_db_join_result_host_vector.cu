// case: a hash-join operator copies its 8 MiB result column back with cudaMemcpyAsync into a thrust::host_vector (pageable) and aggregates it right away; the copy is a pageable async copy, but a device-to-pageable cudaMemcpyAsync returns only once the data is in, so the immediate read is not a race.
// expect: pageable_async_copy=1
#include <cuda_runtime.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sequence.h>
#include <cstdint>
#include <cstdio>

namespace exec {

constexpr int kBuildRows = 1 << 16;
constexpr int kProbeRows = 1 << 20;
constexpr int kSlots = 1 << 17;

__global__ void build_hash(const int64_t* keys, const int64_t* payload, int n, int64_t* slot_key, int64_t* slot_val) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = static_cast<unsigned>(keys[i] * 0x9E3779B97F4A7C15ull >> 47) & (kSlots - 1);
    while (atomicCAS(reinterpret_cast<unsigned long long*>(&slot_key[h]), ~0ull,
                     static_cast<unsigned long long>(keys[i])) != ~0ull)
        h = (h + 1) & (kSlots - 1);
    slot_val[h] = payload[i];
}

__global__ void probe_hash(const int64_t* keys, int n, const int64_t* slot_key, const int64_t* slot_val, int64_t* out) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    unsigned h = static_cast<unsigned>(keys[i] * 0x9E3779B97F4A7C15ull >> 47) & (kSlots - 1);
    int64_t v = -1;
    for (int probe = 0; probe < 64 && slot_key[h] != -1; ++probe, h = (h + 1) & (kSlots - 1))
        if (slot_key[h] == keys[i]) { v = slot_val[h]; break; }
    out[i] = v;
}

template <typename T>
T* raw(thrust::device_vector<T>& v) { return thrust::raw_pointer_cast(v.data()); }

class HashJoin {
public:
    HashJoin() : build_keys_(kBuildRows), build_vals_(kBuildRows), probe_keys_(kProbeRows),
                 slot_key_(kSlots, -1), slot_val_(kSlots), result_(kProbeRows) {
        thrust::sequence(build_keys_.begin(), build_keys_.end(), 0, 3);
        thrust::sequence(build_vals_.begin(), build_vals_.end(), 100);
        thrust::sequence(probe_keys_.begin(), probe_keys_.end());
        cudaStreamCreate(&stream_);
    }
    ~HashJoin() { cudaStreamDestroy(stream_); }

    int64_t run_sum() {
        build_hash<<<(kBuildRows + 255) / 256, 256, 0, stream_>>>(raw(build_keys_), raw(build_vals_), kBuildRows, raw(slot_key_), raw(slot_val_));
        probe_hash<<<(kProbeRows + 255) / 256, 256, 0, stream_>>>(raw(probe_keys_), kProbeRows, raw(slot_key_), raw(slot_val_), raw(result_));

        thrust::host_vector<int64_t> matched(kProbeRows);
        cudaMemcpyAsync(thrust::raw_pointer_cast(matched.data()), raw(result_), kProbeRows * sizeof(int64_t), cudaMemcpyDeviceToHost, stream_);  // EXPECT: pageable_async_copy

        int64_t sum = 0;
        for (int i = 0; i < kProbeRows; ++i)
            if (matched[i] >= 0) sum += matched[i];
        return sum;
    }

private:
    thrust::device_vector<int64_t> build_keys_, build_vals_, probe_keys_;
    thrust::device_vector<int64_t> slot_key_, slot_val_, result_;
    cudaStream_t stream_{};
};

}  // namespace exec

int main() {
    exec::HashJoin join;
    std::printf("SUM(payload) over matches: %lld\n", static_cast<long long>(join.run_sum()));
    return 0;
}
