//! Part 1: sixteen cases of cudarc device and pinned buffers handed to CUDA-aware MPI.

pub mod r501_comm_isend_relax_inplace;
pub mod r502_comm_isend_residual_reads;
pub mod r503_grad_buckets_wrong_stream;
pub mod r504_grad_buckets_per_stream;
pub mod r505_ring_stream_sync_not_wait;
pub mod r506_generic_exchange_faces;
pub mod r507_wait_top_send_bottom;
pub mod r508_vecdeque_chunk_sends;
pub mod r509_pinned_stage_send_unsynced;
pub mod r510_pinned_stage_roundtrip;
pub mod r511_test_once_boundary;
pub mod r512_test_polled_boundary;
pub mod r513_bcast_root_kernel_unsynced;
pub mod r514_bcast_root_event_sync;
pub mod r515_sendrecv_ghost_in_use;
pub mod r516_halo_field_early_return;
