// Build configuration of the GPU video pre-processor.
#pragma once

#define ENC_WIDTH 1920
#define ENC_HEIGHT 1080
#define ENC_FRAMES_IN_FLIGHT 1

// Stage decoded frames in page-locked memory so uploads overlap the colour conversion.
// Turn off (0) on hosts with tight memlock limits.
#define USE_PINNED_STAGING 1
