// case: training loop that checkpoints weights through a pinned mirror (folder case); write_checkpoint() stages the async copy and calls the state's sync() helper, which always runs cudaStreamSynchronize, before fwrite reads the pinned buffer (near-miss)
// expect: none
#include "model_state.cuh"

#include <cstdio>
#include <string>

static bool write_checkpoint(ModelState& state, const std::string& path) {
  state.stage_checkpoint();
  state.sync();
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;  // early return: nothing was read yet
  const size_t n = state.size();
  const size_t written = std::fwrite(state.host_weights(), sizeof(float), n, f);
  std::fclose(f);
  return written == n;
}

int main() {
  ModelState state(size_t(1) << 24);
  for (int k = 1; k <= 1000; ++k) {
    state.step(k);
    if (k % 250 == 0) {
      const std::string path = "ckpt_" + std::to_string(k) + ".bin";
      if (!write_checkpoint(state, path)) {
        std::fprintf(stderr, "could not write %s\n", path.c_str());
        return 1;
      }
      std::printf("step %d: checkpoint %s, w[0]=%g\n", k, path.c_str(), state.host_weights()[0]);
    }
  }
  return 0;
}
