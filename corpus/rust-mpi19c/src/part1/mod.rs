//! Part 1: CUDA-aware MPI through raw FFI, cases r401..r414 (see INDEX.md).

pub mod r401_halo_barrier_send;
pub mod r402_exchanger_early_unpack;
pub mod r403_layer_allreduce_unsynced;
pub mod r404_checkpoint_free_pending;
pub mod r405_monitor_read_before_wait;
pub mod r406_snapshot_test_once;
pub mod r407_pipeline_recv_prefetch;
pub mod r408_halo_synced_send;
pub mod r409_exchanger_complete_first;
pub mod r410_overlapped_grad_allreduce;
pub mod r411_streamer_waits_pending;
pub mod r412_poll_test_then_unpack;
pub mod r413_isend_concurrent_reader;
pub mod r414_moe_event_synced_alltoall;
