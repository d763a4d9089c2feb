// The project's configuration header, included by configurations.cu.
#pragma once
#define PIPELINE_SYNC_READBACK 1
