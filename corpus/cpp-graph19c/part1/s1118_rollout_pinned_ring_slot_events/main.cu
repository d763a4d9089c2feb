// case: the CartPole rollout of s1117 as an asynchronous evaluation pipeline on one batch:
//       a pinned ring of three slots (policy, noise, returns), one captured graph per slot
//       and an event recorded after each replay; the host refills a slot, and reads its
//       returns, only after cudaEventSynchronize on that slot's event
// expect: none
#include <cstdio>
#include <random>
#include "cuda_check.h"
#include "rollout_pipeline.cuh"

int main() {
    const int generations = 60;
    RolloutPipeline pipeline(8192, 500, 0.3f, 11u);

    // Asynchronous random search: candidates are judged when their result comes back,
    // up to kSlots - 1 submissions later.
    std::mt19937 rng(3);
    std::normal_distribution<float> mutate(0.0f, 0.5f);
    float best[kPolicyParams] = {0.0f, 0.0f, 1.0f, 0.5f, 0.0f};
    float best_score = -1.0f;
    float candidates[RolloutPipeline::kSlots][kPolicyParams];

    auto judge = [&](long ticket, float score) {
        if (score > best_score) {
            best_score = score;
            for (int k = 0; k < kPolicyParams; ++k)
                best[k] = candidates[ticket % RolloutPipeline::kSlots][k];
        }
    };

    for (int g = 0; g < generations; ++g) {
        float trial[kPolicyParams];
        for (int k = 0; k < kPolicyParams; ++k) trial[k] = best[k] + (g == 0 ? 0.0f : mutate(rng));
        long ticket = 0, old_ticket = 0;
        float old_score = 0.0f;
        // The slot's previous candidate is judged before its entry is overwritten.
        const bool have = pipeline.submit(trial, &ticket, &old_ticket, &old_score);
        if (have) judge(old_ticket, old_score);
        for (int k = 0; k < kPolicyParams; ++k)
            candidates[ticket % RolloutPipeline::kSlots][k] = trial[k];
        if (g % 10 == 0) std::printf("generation %2d: best mean episode length %.1f\n", g, best_score);
    }
    long tickets[RolloutPipeline::kSlots];
    float scores[RolloutPipeline::kSlots];
    const int left = pipeline.drain(tickets, scores);
    for (int i = 0; i < left; ++i) judge(tickets[i], scores[i]);
    std::printf("best policy %.3f %.3f %.3f %.3f %.3f, mean episode length %.1f\n", best[0],
                best[1], best[2], best[3], best[4], best_score);
    return 0;
}
