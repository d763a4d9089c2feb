//! rust-mpi19b part 1: CUDA-aware MPI cases r301..r318 (see INDEX.md).

pub mod r301_halo_plan_unpack_early;
pub mod r302_halo_plan_unpack_after_finish;
pub mod r303_allgather_stats_barrier;
pub mod r304_allgather_stats_event_sync;
pub mod r305_coupler_steps_stream_sync;
pub mod r306_coupler_steps_test_poll;
pub mod r307_histogram_role_mpi_wait;
pub mod r308_histogram_role_blocking_copy;
pub mod r309_alltoall_transpose_memset;
pub mod r310_alltoall_transpose_memset_first;
pub mod r311_irecv_free_on_jit_error;
pub mod r312_irecv_cancel_wait_then_free;
pub mod r313_pinned_bc_single_test;
pub mod r314_pinned_bc_test_loop;
pub mod r315_bcast_root_async_upload;
pub mod r316_bcast_root_upload_synced;
pub mod r317_ddp_bucket_iallreduce_early;
pub mod r318_ddp_bucket_event_synced;
