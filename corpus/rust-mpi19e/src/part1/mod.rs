//! Part 1: MPI request management in Rust (helper structs, returned requests, windows).

pub mod r601_halo_struct_unpack_early;
pub mod r602_halo_struct_finish_first;
pub mod r603_send_window_undrained;
pub mod r604_send_window_drained;
pub mod r605_recv_helper_stream_sync;
pub mod r606_recv_helper_test_poll;
pub mod r607_option_request_log_peek;
pub mod r608_option_request_completed;
pub mod r609_wait_prev_then_send;
pub mod r610_event_sync_then_isend;
pub mod r611_barrier_then_free_host;
pub mod r612_waitall_array_then_free_host;
