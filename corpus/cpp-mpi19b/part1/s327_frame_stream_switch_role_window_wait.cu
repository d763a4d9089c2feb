// case: a frame-streaming program switches on the rank's role; the producer sends each rendered frame from one pinned staging buffer with MPI_Isend and waits only when its window of requests is full, so on the next frame the host writes the header into h_msg while the previous send may still be reading it.
// expect: missing_sync=1
#include <cstdio>
#include <vector>
#include <mpi.h>
#include <cuda_runtime.h>

enum Role { PRODUCER, CONSUMER, IDLE };
static const int W = 640, HGT = 480, HDR = 4, FRAMES = 120, WINDOW = 8;

__global__ void render(float* img, int w, int h, int frame) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y;
  if (x < w && y < h) img[y * w + x] = 0.5f + 0.5f * __sinf(0.05f * (float)(x + 2 * frame)) * __cosf(0.05f * (float)y);
}

__global__ void accumulate(float* acc, const float* img, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) acc[i] = 0.95f * acc[i] + 0.05f * img[i];
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "needs a producer and a consumer rank\n");
    MPI_Finalize();
    return 1;
  }
  const Role role = rank == 0 ? PRODUCER : (rank == 1 ? CONSUMER : IDLE);
  const int npix = W * HGT, msg = HDR + npix;
  cudaStream_t s;
  cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  MPI_Barrier(MPI_COMM_WORLD);
  const double t0 = MPI_Wtime();

  switch (role) {
    case PRODUCER: {
      float *d_frame, *h_msg;
      cudaMalloc(&d_frame, npix * sizeof(float));
      cudaMallocHost(&h_msg, msg * sizeof(float));
      std::vector<MPI_Request> inflight;
      inflight.reserve(WINDOW);
      for (int f = 0; f < FRAMES; ++f) {
        render<<<dim3((W + 127) / 128, HGT), 128, 0, s>>>(d_frame, W, HGT, f);
        h_msg[0] = (float)f;  // EXPECT: missing_sync
        h_msg[1] = (float)(MPI_Wtime() - t0);
        h_msg[2] = (float)W;
        h_msg[3] = (float)HGT;
        cudaMemcpyAsync(h_msg + HDR, d_frame, npix * sizeof(float), cudaMemcpyDeviceToHost, s);
        cudaStreamSynchronize(s);
        inflight.push_back(MPI_REQUEST_NULL);
        MPI_Isend(h_msg, msg, MPI_FLOAT, 1, f, MPI_COMM_WORLD, &inflight.back());
        if ((int)inflight.size() == WINDOW) {
          MPI_Waitall((int)inflight.size(), inflight.data(), MPI_STATUSES_IGNORE);
          inflight.clear();
        }
      }
      MPI_Waitall((int)inflight.size(), inflight.data(), MPI_STATUSES_IGNORE);
      cudaFree(d_frame);
      cudaFreeHost(h_msg);
      break;
    }
    case CONSUMER: {
      float *d_img, *d_acc, *h_in;
      cudaMalloc(&d_img, npix * sizeof(float));
      cudaMalloc(&d_acc, npix * sizeof(float));
      cudaMallocHost(&h_in, msg * sizeof(float));
      cudaMemsetAsync(d_acc, 0, npix * sizeof(float), s);
      double worst_latency = 0.0;
      for (int f = 0; f < FRAMES; ++f) {
        MPI_Recv(h_in, msg, MPI_FLOAT, 0, f, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        double latency = (MPI_Wtime() - t0) - (double)h_in[1];
        worst_latency = latency > worst_latency ? latency : worst_latency;
        cudaMemcpyAsync(d_img, h_in + HDR, npix * sizeof(float), cudaMemcpyHostToDevice, s);
        accumulate<<<(npix + 255) / 256, 256, 0, s>>>(d_acc, d_img, npix);
        cudaStreamSynchronize(s);
      }
      printf("consumer: %d frames, worst latency %.3f s\n", FRAMES, worst_latency);
      cudaFree(d_img);
      cudaFree(d_acc);
      cudaFreeHost(h_in);
      break;
    }
    default:
      break;
  }

  cudaStreamDestroy(s);
  MPI_Finalize();
  return 0;
}
