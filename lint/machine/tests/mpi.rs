//! CUDA-aware MPI on sequences of transitions: its calls use memory on the host's timeline
//! (`Event::LibraryAccess`), and its nonblocking operations run on their requests
//! (`OpKind::Request`) until completed; CUDA waits and MPI waits do not stand in for each other.

mod support;

use cuda_lint_machine::{Access, Event, Loc, MemKind, OpKind};
use support::{World, none, only, set};

const SYNC: &str = "missing_sync";

/// `call` reads (`write`: writes) `regions` at `at`.
fn mpi(w: &World, at: u32, call: &'static str, access: Access, regions: &[Loc]) -> Vec<support::Found> {
    w.check(
        at,
        &Event::LibraryAccess {
            regions: &set(regions),
            access,
            call,
        },
    )
}

/// A nonblocking MPI operation on `request`, as the front ends start it.
fn start_request(w: &mut World, at: u32, request: Loc, reads: &[Loc], writes: &[Loc]) {
    w.machine.set_request(request);
    let op = w.op(OpKind::Request, at, &[request], reads, writes);
    w.machine.set_host_in_stream_order(op);
    none(w.check(at, &Event::Enqueue { op }));
    w.start(op);
}

#[test]
fn a_send_of_device_memory_a_kernel_may_still_write_is_reported_at_the_call() {
    let mut w: World = World::new();
    let d = w.front.alloc("d_data", MemKind::Device, 1);
    let s = w.front.object("stream");
    // 10: kernel<<<.., stream>>>(d_data);  11: MPI_Send(d_data, ..);
    w.enqueue(OpKind::Launch, 10, &[s], &[], &[d]);
    let f = only(mpi(&w, 11, "MPI_Send", Access::Read, &[d]), SYNC);
    assert!(
        f.message
            .starts_with("`MPI_Send` reads `d_data` while a kernel launch may still write it"),
        "{}",
        f.message
    );
    // Near miss: the stream synchronized first.
    w.sync_streams(&[s]);
    none(mpi(&w, 12, "MPI_Send", Access::Read, &[d]));
}

#[test]
fn cuda_waits_do_not_complete_requests_and_mpi_waits_do_not_wait_for_cuda() {
    let mut w: World = World::new();
    let d = w.front.alloc("d_halo", MemKind::Device, 1);
    let out = w.front.alloc("d_out", MemKind::Device, 2);
    let req = w.front.object("req");
    let s = w.front.object("stream");
    // 10: MPI_Irecv(d_halo, .., &req);  11: cudaDeviceSynchronize();  12: unpack<<<>>>(d_halo).
    start_request(&mut w, 10, req, &[], &[d]);
    w.machine.sync_all(&mut w.state);
    let (_, found) = w.enqueue_checked(OpKind::Launch, 12, &[s], &[d], &[out]);
    let f = only(found, SYNC);
    assert!(
        f.message
            .starts_with("new work uses `d_halo` while a nonblocking MPI operation"),
        "{}",
        f.message
    );
    assert_eq!(
        f.label_at(10),
        Some("nonblocking MPI operation started here on request `req`")
    );
    // 13: MPI_Wait(&req): the receive is done, the kernel is not.
    w.machine.complete_requests(&mut w.state, &set(&[req]), false);
    none(w.read(13, &[]));
    let f = only(mpi(&w, 14, "MPI_Send", Access::Read, &[out]), SYNC);
    assert!(f.message.contains("kernel launch"), "{}", f.message);
}

#[test]
fn host_accesses_and_frees_wait_for_the_request_and_reads_do_not_race_reads() {
    let mut w: World = World::new();
    let h = w.front.alloc("h_send", MemKind::Pageable, 1);
    let req = w.front.object("req");
    // 10: MPI_Isend(h_send, .., &req): MPI keeps pageable memory until completed.
    start_request(&mut w, 10, req, &[h], &[]);
    // 11: the host reads what MPI reads: two reads.
    none(w.read(11, &[h]));
    // 12: the host writes it: reported.
    only(w.write(12, &[h]), SYNC);
    // 13: MPI_Test polled in a loop completes it on every path that goes on.
    w.machine.complete_requests(&mut w.state, &set(&[req]), true);
    none(w.write(14, &[h]));
}

#[test]
fn a_request_not_known_completes_every_request_and_no_cuda_work() {
    let mut w: World = World::new();
    let d = w.front.alloc("h", MemKind::Pinned, 1);
    let k = w.front.alloc("k", MemKind::Device, 2);
    let req = w.front.object("req");
    let s = w.front.object("stream");
    start_request(&mut w, 10, req, &[], &[d]);
    w.enqueue(OpKind::Launch, 11, &[s], &[], &[k]);
    // `MPI_Waitall(n, reqs_from_elsewhere, ..)`: any request.
    w.machine.complete_requests(&mut w.state, &set(&[]), false);
    none(w.read(12, &[d]));
    only(mpi(&w, 13, "MPI_Send", Access::Read, &[k]), SYNC);
}
