// case: an inference worker posts MPI_Irecv for its first batch into d_in to overlap it with loading the weights file, and the error path taken when the file cannot be read frees d_in with cudaFree while the receive is still in flight.
// expect: missing_sync=1
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

enum { TAG_BATCH = 5, TAG_RESULT = 6 };
static const int BATCH = 256, IN = 512, OUT = 128;

__global__ void dense_relu(const float* x, const float* w, float* y, int batch, int in, int out) {
  int idx = blockIdx.x * blockDim.x + threadIdx.x;
  if (idx >= batch * out) return;
  int b = idx / out, o = idx % out;
  float acc = 0.0f;
  for (int i = 0; i < in; ++i) acc += w[o * in + i] * x[b * in + i];
  y[idx] = acc > 0.0f ? acc : 0.0f;
}

static int run_worker(int rank, const char* weights_path) {
  const int nx = BATCH * IN, ny = BATCH * OUT, nw = OUT * IN;
  float *d_in, *d_out, *d_w;
  cudaMalloc(&d_in, nx * sizeof(float));
  cudaMalloc(&d_out, ny * sizeof(float));
  cudaMalloc(&d_w, nw * sizeof(float));
  cudaMemset(d_in, 0, nx * sizeof(float));
  cudaDeviceSynchronize();

  // the frontend's first batch can arrive while the weights are read from disk
  MPI_Request batch_req;
  MPI_Irecv(d_in, nx, MPI_FLOAT, 0, TAG_BATCH, MPI_COMM_WORLD, &batch_req);

  std::vector<float> h_w(nw);
  FILE* f = fopen(weights_path, "rb");
  if (f == NULL || fread(h_w.data(), sizeof(float), nw, f) != (size_t)nw) {
    fprintf(stderr, "rank %d: cannot load %s\n", rank, weights_path);
    if (f != NULL) fclose(f);
    cudaFree(d_in);  // EXPECT: missing_sync
    cudaFree(d_out);
    cudaFree(d_w);
    return 1;
  }
  fclose(f);
  cudaMemcpy(d_w, h_w.data(), nw * sizeof(float), cudaMemcpyHostToDevice);

  MPI_Wait(&batch_req, MPI_STATUS_IGNORE);
  dense_relu<<<(ny + 255) / 256, 256>>>(d_in, d_w, d_out, BATCH, IN, OUT);
  std::vector<float> h_out(ny);
  cudaMemcpy(h_out.data(), d_out, ny * sizeof(float), cudaMemcpyDeviceToHost);
  MPI_Send(h_out.data(), ny, MPI_FLOAT, 0, TAG_RESULT, MPI_COMM_WORLD);

  cudaDeviceSynchronize();
  cudaFree(d_in);
  cudaFree(d_out);
  cudaFree(d_w);
  return 0;
}

static void run_frontend(int size) {
  float* h_batch;
  cudaMallocHost(&h_batch, BATCH * IN * sizeof(float));
  for (int i = 0; i < BATCH * IN; ++i) h_batch[i] = (float)(i % 17) / 17.0f;
  for (int w = 1; w < size; ++w) MPI_Send(h_batch, BATCH * IN, MPI_FLOAT, w, TAG_BATCH, MPI_COMM_WORLD);
  std::vector<float> result(BATCH * OUT);
  for (int w = 1; w < size; ++w) {
    MPI_Recv(result.data(), BATCH * OUT, MPI_FLOAT, w, TAG_RESULT, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    printf("worker %d: y[0] = %.4f\n", w, result[0]);
  }
  cudaFreeHost(h_batch);
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  const char* weights = argc > 1 ? argv[1] : "dense.bin";
  if (rank == 0) {
    run_frontend(size);
  } else if (run_worker(rank, weights) != 0) {
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  MPI_Finalize();
  return 0;
}
