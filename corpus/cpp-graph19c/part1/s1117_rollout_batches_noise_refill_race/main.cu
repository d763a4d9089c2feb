// case: a reinforcement-learning rollout engine with one captured graph per environment
//       batch (each graph uploads the policy and a pinned block of exploration noise,
//       steps CartPole `horizon` times and downloads the returns); to overlap host and GPU
//       work, the host draws the next noise into the same pinned blocks right after
//       launching the graphs, while their uploads may still be reading them
// expect: missing_sync=1
#include <cstdio>
#include <random>
#include <vector>
#include "cuda_check.h"
#include "rollout_engine.cuh"

int main() {
    const std::vector<int> batch_sizes = {4096, 4096, 2048, 1024};
    const int horizon = 500;
    const int generations = 40;
    RolloutEngine engine(batch_sizes, horizon, 0.3f, 11u);

    // (1+1) evolution strategy on the policy.
    std::mt19937 rng(3);
    std::normal_distribution<float> mutate(0.0f, 0.5f);
    float parent[kPolicyParams] = {0.0f, 0.0f, 1.0f, 0.5f, 0.0f};
    float child[kPolicyParams];
    float parent_score = engine.evaluate(parent);
    for (int g = 0; g < generations; ++g) {
        for (int k = 0; k < kPolicyParams; ++k) child[k] = parent[k] + mutate(rng);
        const float score = engine.evaluate(child);
        if (score >= parent_score) {
            parent_score = score;
            for (int k = 0; k < kPolicyParams; ++k) parent[k] = child[k];
        }
        if (g % 10 == 0) std::printf("generation %2d: mean episode length %.1f\n", g, parent_score);
    }
    std::printf("final policy %.3f %.3f %.3f %.3f %.3f, mean episode length %.1f\n", parent[0],
                parent[1], parent[2], parent[3], parent[4], parent_score);
    return 0;
}
