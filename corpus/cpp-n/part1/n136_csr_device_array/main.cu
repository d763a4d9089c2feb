// case: CSR SpMV whose matrix is allocated and uploaded in a helper function that returns a struct of move-only DeviceArray members (device_array.cuh); the result array starts empty (null) and is move-assigned a real allocation before the kernel, all work is on the legacy default stream and the blocking download completes before the destructors free everything.
// expect: none
#include "device_array.cuh"

struct CsrDevice {
  DeviceArray<int> row_ptr;
  DeviceArray<int> col_idx;
  DeviceArray<float> vals;
  int rows;
};

static CsrDevice upload_csr(const std::vector<int>& rp, const std::vector<int>& ci, const std::vector<float>& v,
                            int rows) {
  CsrDevice m{DeviceArray<int>(rp.size()), DeviceArray<int>(ci.size()), DeviceArray<float>(v.size()), rows};
  m.row_ptr.upload(rp);
  m.col_idx.upload(ci);
  m.vals.upload(v);
  return m;
}

__global__ void spmv_csr(const int* row_ptr, const int* col_idx, const float* vals, const float* x, float* y,
                         int rows) {
  int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float acc = 0.f;
  for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) acc += vals[k] * x[col_idx[k]];
  y[r] = acc;
}

int main() {
  const int n = 1 << 18;
  std::vector<int> rp(n + 1), ci;
  std::vector<float> v;
  ci.reserve(3 * size_t(n));
  v.reserve(3 * size_t(n));
  for (int r = 0; r < n; ++r) {
    rp[r] = int(ci.size());
    for (int c = r - 1; c <= r + 1; ++c) {
      if (c < 0 || c >= n) continue;
      ci.push_back(c);
      v.push_back(c == r ? 2.0f : -1.0f);
    }
  }
  rp[n] = int(ci.size());

  CsrDevice A = upload_csr(rp, ci, v, n);
  DeviceArray<float> x(n);
  x.upload(std::vector<float>(n, 1.0f));
  DeviceArray<float> y;
  y = DeviceArray<float>(n);

  spmv_csr<<<(n + 255) / 256, 256>>>(A.row_ptr.data(), A.col_idx.data(), A.vals.data(), x.data(), y.data(),
                                     A.rows);
  CUDA_CHECK(cudaGetLastError());
  std::vector<float> h_y = y.download();
  printf("y[0] = %.1f, y[1] = %.1f, y[n-1] = %.1f\n", h_y[0], h_y[1], h_y[n - 1]);
  return 0;
}
