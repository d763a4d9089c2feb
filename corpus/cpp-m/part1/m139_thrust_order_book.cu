// case: An order-book aggregator keeps prices in thrust::device_vector, reads single elements on the host through device_vector's operator[] (a device_reference that copies), reduces with thrust, passes raw_pointer_cast pointers to its own kernel and copies results into a host_vector before reading them; no raw device pointer is dereferenced on the host; correct.
// expect: none
#include <cuda_runtime.h>
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/extrema.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/sort.h>
#include <cstdio>
#include <cstdlib>

#define CUDA_CHECK(x)                                                              \
    do {                                                                           \
        cudaError_t e_ = (x);                                                      \
        if (e_ != cudaSuccess) {                                                   \
            std::fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__,                 \
                         cudaGetErrorString(e_));                                  \
            std::exit(EXIT_FAILURE);                                               \
        }                                                                          \
    } while (0)

__global__ void notional(const float* __restrict__ price, const int* __restrict__ qty,
                         float* __restrict__ out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = price[i] * qty[i];
}

int main() {
    const int n = 1 << 20;
    thrust::host_vector<float> h_price(n);
    thrust::host_vector<int> h_qty(n);
    for (int i = 0; i < n; ++i) {
        h_price[i] = 100.0f + float((i * 7919) % 2000 - 1000) * 0.01f;
        h_qty[i] = 1 + (i * 31) % 500;
    }

    thrust::device_vector<float> price = h_price;
    thrust::device_vector<int> qty = h_qty;
    thrust::device_vector<float> value(n);

    notional<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(price.data()),
                                       thrust::raw_pointer_cast(qty.data()),
                                       thrust::raw_pointer_cast(value.data()), n);
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaDeviceSynchronize());

    float first_value = value[0];  // device_reference: a copy to the host
    float total = thrust::reduce(value.begin(), value.end(), 0.0f);
    auto best = thrust::max_element(price.begin(), price.end());
    float best_price = *best;
    long best_index = best - price.begin();

    thrust::sort(price.begin(), price.end());
    float median = price[n / 2];

    thrust::host_vector<float> top(16);
    thrust::copy(price.end() - 16, price.end(), top.begin());
    std::printf("first notional %.2f, total %.1f, max price %.2f at %ld, median %.2f\n",
                first_value, total, best_price, best_index, median);
    std::printf("top prices: %.2f .. %.2f\n", top[0], top[15]);
    return 0;
}
