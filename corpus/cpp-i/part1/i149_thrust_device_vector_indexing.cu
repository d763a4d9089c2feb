// case: a thrust pipeline reads single elements of a device_vector with operator[] on the host, which thrust turns into a device-to-host copy, and copies the rest back with thrust::copy
// expect: none
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <cstdio>

__global__ void histogram_equalize(const int* cdf, int total, const unsigned char* in, unsigned char* out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (unsigned char)(255.0f * cdf[in[i]] / total);
}

__global__ void count_levels(const unsigned char* in, int n, int* hist) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&hist[in[i]], 1);
}

int main() {
    const int n = 1 << 22;
    thrust::host_vector<unsigned char> h_img(n);
    for (int i = 0; i < n; ++i) h_img[i] = (unsigned char)(64 + (i % 97));

    thrust::device_vector<unsigned char> d_img = h_img;
    thrust::device_vector<unsigned char> d_out(n);
    thrust::device_vector<int> d_hist(256, 0);
    thrust::device_vector<int> d_cdf(256);

    count_levels<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d_img.data()), n,
                                            thrust::raw_pointer_cast(d_hist.data()));
    thrust::inclusive_scan(d_hist.begin(), d_hist.end(), d_cdf.begin());

    int total = d_cdf[255];
    int darkest = d_cdf[63];
    printf("total %d, below 64: %d\n", total, darkest);

    histogram_equalize<<<(n + 255) / 256, 256>>>(thrust::raw_pointer_cast(d_cdf.data()), total,
                                                 thrust::raw_pointer_cast(d_img.data()),
                                                 thrust::raw_pointer_cast(d_out.data()), n);
    thrust::host_vector<unsigned char> h_out(n);
    thrust::copy(d_out.begin(), d_out.end(), h_out.begin());
    long sum = thrust::reduce(h_out.begin(), h_out.end(), 0L);
    printf("first %u last %u mean %.2f\n", (unsigned)h_out[0], (unsigned)h_out[n - 1], (double)sum / n);
    return 0;
}
