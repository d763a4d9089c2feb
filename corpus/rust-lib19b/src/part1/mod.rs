//! Part 1: cuBLAS routines (raw `cudarc::cublas::sys` and the safe `CudaBlas`) ordered
//! against kernels, copies and host reads. See INDEX.md.
pub mod r901_linear_relu_legacy_handle;
pub mod r902_linear_relu_stream_bound;
pub mod r903_richardson_device_residual;
pub mod r904_steepest_descent_blocking_stream;
pub mod r905_batched_inference_untracked;
pub mod r906_batched_inference_event_ordered;
pub mod r907_projection_head_struct;
pub mod r908_classifier_struct_bound;
pub mod r909_feature_scoring_gemv;
pub mod r910_feature_scoring_default_stream;
pub mod r911_chunked_gemm_copy_stream;
pub mod r912_chunked_gemm_event_pipeline;
pub mod r913_eval_logits_worker_stream;
pub mod r914_shared_projection_tracked;
