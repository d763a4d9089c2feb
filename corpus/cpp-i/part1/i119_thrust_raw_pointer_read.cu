// case: a thrust-based sort pipeline takes a raw pointer out of a device_vector with raw_pointer_cast for its own kernel and later reads the minimum key through that raw pointer on the host
// expect: host_deref_device_ptr=1
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(call) do { cudaError_t e_ = (call); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

__global__ void jitter_keys(unsigned int* keys, int n, unsigned int salt) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) keys[i] ^= (salt * (i + 1)) & 0xff;
}

template <typename T>
static T* raw(thrust::device_vector<T>& v) {
    return thrust::raw_pointer_cast(v.data());
}

static bool is_sorted_host(const thrust::host_vector<unsigned int>& v) {
    for (size_t i = 1; i < v.size(); ++i)
        if (v[i - 1] > v[i]) return false;
    return true;
}

int main() {
    const int n = 1 << 20;
    thrust::host_vector<unsigned int> h_keys(n);
    for (int i = 0; i < n; ++i) h_keys[i] = (unsigned int)((n - i) * 2654435761u);

    thrust::device_vector<unsigned int> d_keys = h_keys;
    unsigned int* d_raw = raw(d_keys);
    jitter_keys<<<(n + 255) / 256, 256>>>(d_raw, n, 0x9e37u);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    thrust::sort(d_keys.begin(), d_keys.end());
    CUDA_CHECK(cudaDeviceSynchronize());

    unsigned int smallest = d_raw[0]; // EXPECT: host_deref_device_ptr
    printf("smallest key %u\n", smallest);

    thrust::host_vector<unsigned int> sorted = d_keys;
    printf("sorted: %s\n", is_sorted_host(sorted) ? "yes" : "no");
    return 0;
}
