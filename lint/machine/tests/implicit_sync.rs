//! `relies_on_implicit_sync` on sequences of transitions: a free that waits only by the driver's
//! accident (`cudaFree`), what that free alone orders, and pageable copies taken as finished;
//! each with near misses, and with `missing_sync` kept apart.

mod support;

use cuda_lint_machine::{Event, MemKind, OpKind};
use support::{World, none, none_of, only, set};

const RELIES: &str = "relies_on_implicit_sync";
const SYNC: &str = "missing_sync";

/// `cudaFree(regions)` at `at`, as the front ends report it: the event, then the wait.
fn implicit_free(w: &mut World, at: u32, regions: &[cuda_lint_machine::Loc]) -> Vec<support::Found> {
    let found = w.check(at, &Event::ImplicitWait { regions: &set(regions) });
    w.machine.wait_implicitly(&mut w.state);
    found
}

#[test]
fn freeing_what_a_kernel_may_still_read_relies_on_the_free() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let out = w.front.alloc("d_out", MemKind::Device, 2);
    let s = w.front.object("stream");
    // 10: scale<<<.., stream>>>(d_tmp, d_out);  11: cudaFree(d_tmp);
    w.enqueue(OpKind::Launch, 10, &[s], &[tmp], &[out]);
    let f = only(implicit_free(&mut w, 11, &[tmp]), RELIES);
    assert!(
        f.message
            .starts_with("`d_tmp` is freed while a kernel launch may still use it"),
        "{}",
        f.message
    );
    assert_eq!(f.label_at(10), Some("kernel launch started here on stream `stream`"));
    assert!(!f.some_paths);
    // 12: cudaFree(d_out): the launch was reported once; the second free is the same mistake,
    // and the machine takes the launch as done in practice.
    none(implicit_free(&mut w, 12, &[out]));
}

#[test]
fn a_wait_before_the_free_or_memory_no_work_uses_is_quiet() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let other = w.front.alloc("d_other", MemKind::Device, 2);
    let s = w.front.object("stream");
    w.enqueue(OpKind::Launch, 10, &[s], &[tmp], &[]);
    // Memory no work uses.
    none(implicit_free(&mut w, 11, &[other]));
    let mut w2: World = World::new();
    let tmp = w2.front.alloc("d_tmp", MemKind::Device, 1);
    let s = w2.front.object("stream");
    w2.enqueue(OpKind::Launch, 10, &[s], &[tmp], &[]);
    w2.sync_streams(&[s]);
    none(implicit_free(&mut w2, 11, &[tmp]));
}

#[test]
fn a_host_read_ordered_only_by_a_free_of_other_memory_relies_on_it() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let res = w.front.alloc("result", MemKind::Managed, 2);
    let s = w.front.object("stream");
    // 10: k<<<.., s>>>(result); 11: cudaFree(d_tmp); 12: printf("%f", result[0]);
    w.enqueue(OpKind::Launch, 10, &[s], &[], &[res]);
    none(implicit_free(&mut w, 11, &[tmp]));
    let found = w.read(12, &[res]);
    none_of(&found, SYNC);
    let f = only(found, RELIES);
    assert!(
        f.message.starts_with("host read of `result` after a kernel launch"),
        "{}",
        f.message
    );
    // A synchronize after the free makes it documented.
    w.sync_streams(&[s]);
    none(w.read(13, &[res]));
}

#[test]
fn without_any_free_the_read_is_missing_sync_not_this_lint() {
    let mut w: World = World::new();
    let res = w.front.alloc("result", MemKind::Pinned, 2);
    let s = w.front.object("stream");
    w.enqueue(OpKind::Copy, 10, &[s], &[], &[res]);
    only(w.read(12, &[res]), SYNC);
}

#[test]
fn a_path_without_the_free_keeps_the_race_missing_sync() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let res = w.front.alloc("result", MemKind::Pinned, 2);
    let s = w.front.object("stream");
    w.enqueue(OpKind::Copy, 10, &[s], &[], &[res]);
    // if (..) cudaFree(d_tmp);  (else nothing)
    w.if_else(
        |w| {
            implicit_free(w, 11, &[tmp]);
        },
        |_| {},
    );
    only(w.read(12, &[res]), SYNC);
    // Both paths free: only the implicit wait orders it.
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let res = w.front.alloc("result", MemKind::Pinned, 2);
    let s = w.front.object("stream");
    w.enqueue(OpKind::Copy, 10, &[s], &[], &[res]);
    w.if_else(
        |w| {
            implicit_free(w, 11, &[tmp]);
        },
        |w| {
            w.sync_streams(&[s]);
        },
    );
    let f = only(w.read(12, &[res]), RELIES);
    assert!(f.some_paths, "the other path waited: {f:#?}");
}

#[test]
fn work_started_again_after_the_free_is_in_flight_again() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let res = w.front.alloc("result", MemKind::Pinned, 2);
    let s = w.front.object("stream");
    let copy = w.op(OpKind::Copy, 10, &[s], &[], &[res]);
    w.start(copy);
    implicit_free(&mut w, 11, &[tmp]);
    // The next round of a loop starts the copy again: new work nothing waited for.
    w.start(copy);
    only(w.read(12, &[res]), SYNC);
}

#[test]
fn reading_the_pageable_destination_of_an_async_copy_relies_on_pageability() {
    let mut w: World = World::new();
    let h = w.front.alloc("h_out", MemKind::Pageable, 1);
    let d = w.front.alloc("d_out", MemKind::Device, 2);
    let s = w.front.object("stream");
    // 10: cudaMemcpyAsync(h_out, d_out, n, DtoH, s); 11: use(h_out[0]);
    w.enqueue(OpKind::Copy, 10, &[s], &[d], &[h]);
    let f = only(w.read(11, &[h]), RELIES);
    assert!(
        f.message.contains("right only because `h_out` is pageable"),
        "{}",
        f.message
    );
    // After a synchronize: documented.
    w.sync_streams(&[s]);
    none(w.read(12, &[h]));
}

#[test]
fn the_pageable_source_of_an_upload_and_pinned_memory_are_not_this_lint() {
    let mut w: World = World::new();
    let h = w.front.alloc("h_in", MemKind::Pageable, 1);
    let d = w.front.alloc("d_in", MemKind::Device, 2);
    let s = w.front.object("stream");
    // An upload from pageable memory: staged before the call returns (its reads are not kept).
    w.enqueue(OpKind::Copy, 10, &[s], &[], &[d]);
    none(w.write(11, &[h]));
    // Pinned: a plain race.
    let p = w.front.alloc("h_pinned", MemKind::Pinned, 3);
    w.enqueue(OpKind::Copy, 12, &[s], &[d], &[p]);
    only(w.read(13, &[p]), SYNC);
}

#[test]
fn work_on_another_stream_after_only_a_free_relies_on_it() {
    let mut w: World = World::new();
    let tmp = w.front.alloc("d_tmp", MemKind::Device, 1);
    let buf = w.front.alloc("d_buf", MemKind::Device, 2);
    let (a, b) = (w.front.object("a"), w.front.object("b"));
    w.machine.set_non_blocking(a);
    w.machine.set_non_blocking(b);
    w.enqueue(OpKind::Launch, 10, &[a], &[], &[buf]);
    none(implicit_free(&mut w, 11, &[tmp]));
    let (_, found) = w.enqueue_checked(OpKind::Launch, 12, &[b], &[buf], &[]);
    none_of(&found, SYNC);
    only(found, RELIES);
}

#[test]
fn what_a_synchronous_call_left_running_is_not_work_to_wait_for() {
    let mut w: World = World::new();
    let d = w.front.alloc("d", MemKind::Device, 1);
    let legacy = w.front.object("legacy");
    // 10: cudaMemset(d, 0, n) (asynchronous for device memory); 11: cudaFree(d)
    let memset = w.op(OpKind::Memset, 10, &[legacy], &[], &[d]);
    w.machine.set_blocking(memset);
    w.start(memset);
    none(implicit_free(&mut w, 11, &[d]));
}

#[test]
fn work_whose_enqueue_failed_never_started() {
    let mut w: World = World::new();
    let d = w.front.alloc("d", MemKind::Device, 1);
    let s = w.front.object("stream");
    let launch = w.enqueue(OpKind::Launch, 10, &[s], &[d], &[]);
    // if (launch failed) { cudaFree(d); }
    w.state.never_started(&support::ops(&[launch]));
    assert!(!w.may_run(launch));
    assert!(!w.state.may_have_finished(launch), "nobody waited for it");
    none(implicit_free(&mut w, 11, &[d]));
}
