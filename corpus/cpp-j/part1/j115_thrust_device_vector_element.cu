// case: a thrust::device_vector is reduced and scanned, and the host reads single elements through device_vector::operator[] and copies back with thrust::copy; thrust turns those accesses into device-to-host copies, so nothing dereferences device memory
// expect: none
#include <thrust/copy.h>
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sequence.h>
#include <cstdio>

int main() {
    const int n = 1 << 18;
    thrust::device_vector<int> counts(n);
    thrust::sequence(counts.begin(), counts.end(), 0);

    thrust::device_vector<int> offsets(n);
    thrust::exclusive_scan(counts.begin(), counts.end(), offsets.begin());

    int total = thrust::reduce(counts.begin(), counts.end());
    int first_offset = offsets[1];
    int last_offset = offsets[n - 1];
    printf("total=%d offsets[1]=%d offsets[n-1]=%d\n", total, first_offset, last_offset);

    thrust::host_vector<int> h_offsets(n);
    thrust::copy(offsets.begin(), offsets.end(), h_offsets.begin());
    long long check = 0;
    for (int i = 0; i < n; ++i) check += h_offsets[i] & 1;
    printf("odd offsets: %lld\n", check);

    thrust::device_vector<int> flags(n, 0);
    for (int k = 0; k < 8; ++k) flags[k * (n / 8)] = 1;
    int marked = thrust::reduce(flags.begin(), flags.end());
    printf("marked %d segment heads\n", marked);

    offsets[0] = -1;
    int sentinel = offsets[0];
    printf("sentinel %d\n", sentinel);

    thrust::host_vector<int> h_flags = flags;
    int heads = 0;
    for (int i = 0; i < n; ++i) heads += h_flags[i];
    printf("heads seen on host: %d\n", heads);
    return 0;
}
