//! The standard library: owners of pageable memory, views that derive pointers without reading
//! through them, and functions that only move values through.
//!
//! A call to a function not listed in any table is taken to read (or, through `&mut`, write)
//! the memory its arguments refer to; entries here keep that default from firing on calls that
//! do not touch memory contents.

use super::Effect::*;
use super::{Advice, ApiFamily, ApiType, FreeKind, MemKind, Target, TypeRole, f};

const fn pageable(path: &'static str) -> ApiType {
    ApiType {
        path,
        role: TypeRole {
            target: Target::Mem(MemKind::Pageable),
            on_drop: Some(FreeKind::Immediate),
        },
    }
}

pub static FAMILY: ApiFamily = ApiFamily {
    name: "std",
    // The standard library enqueues no GPU work: nothing is reported about its calls.
    advice: Advice::NONE,
    crates: &["core", "alloc", "std"],
    functions: &[
        // Rust's global allocator: pageable host memory, like `malloc`'s.
        f("alloc::alloc::alloc", &[New(PAGEABLE)]),
        f("alloc::alloc::alloc_zeroed", &[New(PAGEABLE)]),
        f("alloc::alloc::realloc", &[New(PAGEABLE)]),
        f(
            "alloc::alloc::dealloc",
            &[Free {
                mem: 0,
                kind: FreeKind::Immediate,
            }],
        ),
        // Views: the result points into the same memory; nothing is read yet.
        f("core::ops::deref::Deref::deref", &[Derive(0)]),
        f("core::ops::deref::DerefMut::deref_mut", &[Derive(0)]),
        f("core::ops::index::Index::index", &[Derive(0)]),
        f("core::ops::index::IndexMut::index_mut", &[Derive(0)]),
        f("core::convert::AsRef::as_ref", &[Derive(0)]),
        f("core::convert::AsMut::as_mut", &[Derive(0)]),
        f("core::borrow::Borrow::borrow", &[Derive(0)]),
        f("core::borrow::BorrowMut::borrow_mut", &[Derive(0)]),
        // `Some(&x)` of the `Some(x)` the argument points to.
        f("core::option::Option::as_ref", &[SomeRef(0)]),
        f("core::option::Option::as_mut", &[SomeRef(0)]),
        f("core::option::Option::as_deref", &[SomeRef(0)]),
        f("core::option::Option::as_deref_mut", &[SomeRef(0)]),
        f("core::cell::RefCell::borrow", &[Derive(0)]),
        f("core::cell::RefCell::borrow_mut", &[Derive(0)]),
        f("std::sync::poison::mutex::Mutex::lock", &[Derive(0)]),
        f("std::sync::poison::rwlock::RwLock::read", &[Derive(0)]),
        f("std::sync::poison::rwlock::RwLock::write", &[Derive(0)]),
        f("[]::as_ptr", &[Derive(0)]),
        f("[]::as_mut_ptr", &[Derive(0)]),
        f("[]::as_ptr_range", &[Derive(0)]),
        f("[]::as_mut_ptr_range", &[Derive(0)]),
        f("[]::iter", &[Derive(0)]),
        f("[]::iter_mut", &[Derive(0)]),
        // Draining yields the elements (moved out), as iterating over them does.
        f("alloc::vec::Vec::drain", &[Derive(0)]),
        f("alloc::collections::vec_deque::VecDeque::drain", &[Derive(0)]),
        f("[]::chunks", &[Parts(0)]),
        f("[]::chunks_mut", &[Parts(0)]),
        f("[]::chunks_exact", &[Parts(0)]),
        f("[]::chunks_exact_mut", &[Parts(0)]),
        f("[]::windows", &[Derive(0)]),
        f("[]::split_at", &[SplitAt(0)]),
        f("[]::split_at_mut", &[SplitAt(0)]),
        f("[]::get", &[Derive(0)]),
        f("[]::get_mut", &[Derive(0)]),
        f("[]::get_unchecked", &[Derive(0)]),
        f("[]::get_unchecked_mut", &[Derive(0)]),
        f("[]::first", &[Derive(0)]),
        // What a `MaybeUninit` a call wrote holds (`cuMemAlloc(dptr.as_mut_ptr(), ..)`, then
        // `dptr.assume_init()`: the address).
        f("core::mem::maybe_uninit::MaybeUninit::assume_init", &[Transparent]),
        f("core::mem::maybe_uninit::MaybeUninit::assume_init_read", &[Transparent]),
        f("[]::last", &[Derive(0)]),
        // Pointer arithmetic: the result points where its operand does; nothing is read.
        f("*const::add", &[Transparent]),
        f("*const::sub", &[Transparent]),
        f("*const::offset", &[Transparent]),
        f("*const::byte_add", &[Transparent]),
        f("*const::byte_sub", &[Transparent]),
        f("*const::byte_offset", &[Transparent]),
        f("*const::wrapping_add", &[Transparent]),
        f("*const::wrapping_sub", &[Transparent]),
        f("*const::wrapping_offset", &[Transparent]),
        f("*const::wrapping_byte_add", &[Transparent]),
        f("*const::wrapping_byte_sub", &[Transparent]),
        f("*const::wrapping_byte_offset", &[Transparent]),
        f("*const::cast", &[Transparent]),
        f("*const::with_addr", &[Transparent]),
        f("*const::map_addr", &[Transparent]),
        f("*const::mask", &[Transparent]),
        f("*mut::add", &[Transparent]),
        f("*mut::sub", &[Transparent]),
        f("*mut::offset", &[Transparent]),
        f("*mut::byte_add", &[Transparent]),
        f("*mut::byte_sub", &[Transparent]),
        f("*mut::byte_offset", &[Transparent]),
        f("*mut::wrapping_add", &[Transparent]),
        f("*mut::wrapping_sub", &[Transparent]),
        f("*mut::wrapping_offset", &[Transparent]),
        f("*mut::wrapping_byte_add", &[Transparent]),
        f("*mut::wrapping_byte_sub", &[Transparent]),
        f("*mut::wrapping_byte_offset", &[Transparent]),
        f("*mut::cast", &[Transparent]),
        f("*mut::with_addr", &[Transparent]),
        f("*mut::map_addr", &[Transparent]),
        f("*mut::mask", &[Transparent]),
        f("*mut::cast_const", &[Transparent]),
        f("*const::cast_mut", &[Transparent]),
        // Questions about the address, not the memory.
        f("*const::is_null", &[NoAccess]),
        f("*const::addr", &[NoAccess]),
        f("*const::expose_provenance", &[NoAccess]),
        f("*const::is_aligned", &[NoAccess]),
        f("*const::align_offset", &[NoAccess]),
        f("*const::offset_from", &[NoAccess]),
        f("*const::byte_offset_from", &[NoAccess]),
        f("*const::offset_from_unsigned", &[NoAccess]),
        f("*mut::is_null", &[NoAccess]),
        f("*mut::addr", &[NoAccess]),
        f("*mut::expose_provenance", &[NoAccess]),
        f("*mut::is_aligned", &[NoAccess]),
        f("*mut::align_offset", &[NoAccess]),
        f("*mut::offset_from", &[NoAccess]),
        f("*mut::byte_offset_from", &[NoAccess]),
        f("*mut::offset_from_unsigned", &[NoAccess]),
        // `vec![a, b]`: a new `Vec` holding the boxed array's elements.
        f("alloc::boxed::box_assume_init_into_vec_unsafe", &[Elements(0)]),
        f("alloc::vec::Vec::as_slice", &[Derive(0)]),
        f("alloc::vec::Vec::as_mut_slice", &[Derive(0)]),
        f("alloc::vec::Vec::as_ptr", &[Derive(0)]),
        f("alloc::vec::Vec::as_mut_ptr", &[Derive(0)]),
        f("str::as_bytes", &[Derive(0)]),
        // C strings: the same text (a kernel's PTX handed to `cuModuleLoadData`).
        f("alloc::ffi::c_str::CString::new", &[Transparent]),
        f("core::ffi::c_str::CStr::as_ptr", &[Derive(0)]),
        f("str::as_ptr", &[Derive(0)]),
        f("alloc::string::String::as_bytes", &[Derive(0)]),
        f("alloc::string::String::as_str", &[Derive(0)]),
        f("core::ptr::slice_from_raw_parts", &[Derive(0)]),
        // Pointers kept, not dereferenced.
        f("core::ptr::non_null::NonNull::new", &[Derive(0)]),
        f("core::ptr::non_null::NonNull::new_unchecked", &[Derive(0)]),
        f("core::ptr::non_null::NonNull::as_ptr", &[Derive(0)]),
        // `AtomicPtr<T>` is `Atomic<*mut T>` (as every atomic type is now).
        f("core::sync::atomic::Atomic::new", &[Derive(0)]),
        f("core::sync::atomic::Atomic::load", &[Contents(0)]),
        f("core::ptr::slice_from_raw_parts_mut", &[Derive(0)]),
        f("core::ptr::null", &[NoAccess]),
        f("core::ptr::null_mut", &[NoAccess]),
        // A raw pointer made into a slice the host will read or write.
        f("core::slice::raw::from_raw_parts", &[HostView { arg: 0, write: false }]),
        f(
            "core::slice::raw::from_raw_parts_mut",
            &[HostView { arg: 0, write: true }],
        ),
        // Sizes and lengths.
        f("[]::len", &[NoAccess]),
        f("[]::is_empty", &[NoAccess]),
        f("alloc::vec::Vec::len", &[NoAccess]),
        f("alloc::vec::Vec::is_empty", &[NoAccess]),
        f("alloc::vec::Vec::capacity", &[NoAccess]),
        // Sets the length the `Vec` keeps; its elements are neither read nor written.
        f("alloc::vec::Vec::set_len", &[NoAccess]),
        f("alloc::string::String::len", &[NoAccess]),
        f("str::len", &[NoAccess]),
        f("core::mem::size_of", &[NoAccess]),
        f("core::mem::size_of_val", &[NoAccess]),
        f("core::mem::forget", &[NoAccess]),
        // Values moved through: `?`, unwrapping, conversions, iteration set-up.
        f("core::ops::try_trait::Try::branch", &[Transparent]),
        f("core::ops::try_trait::FromResidual::from_residual", &[Transparent]),
        f("core::convert::From::from", &[Transparent]),
        f("core::convert::Into::into", &[Transparent]),
        f("core::convert::identity", &[Transparent]),
        f("core::result::Result::unwrap", &[Transparent]),
        f("core::result::Result::expect", &[Transparent]),
        f("core::result::Result::ok", &[Transparent]),
        // The `Ok` value moves through an error conversion unchanged (`new(..).map_err(..)?`).
        f("core::result::Result::map_err", &[Transparent]),
        f("core::result::Result::inspect_err", &[Transparent]),
        f("core::option::Option::ok_or", &[OkOfSome(0)]),
        f("core::option::Option::ok_or_else", &[OkOfSome(0)]),
        f("core::option::Option::unwrap", &[Transparent]),
        f("core::option::Option::expect", &[Transparent]),
        // Moves through an `Option` or a `&mut` place: what was there comes out, fields and all.
        f(
            "core::option::Option::take",
            &[Replace {
                dst: 0,
                value: None,
                some: false,
            }],
        ),
        f(
            "core::option::Option::replace",
            &[Replace {
                dst: 0,
                value: Some(1),
                some: true,
            }],
        ),
        f(
            "core::option::Option::insert",
            &[InsertSome {
                dst: 0,
                value: 1,
                keep: false,
            }],
        ),
        f(
            "core::option::Option::get_or_insert",
            &[InsertSome {
                dst: 0,
                value: 1,
                keep: true,
            }],
        ),
        f("core::iter::traits::collect::IntoIterator::into_iter", &[Transparent]),
        // `fut.await`: the future itself is polled (its body runs where it is awaited).
        f("core::future::into_future::IntoFuture::into_future", &[Transparent]),
        f("core::pin::Pin::new_unchecked", &[Transparent]),
        f("core::pin::Pin::new", &[Transparent]),
        f(
            "core::mem::replace",
            &[Replace {
                dst: 0,
                value: Some(1),
                some: false,
            }],
        ),
        f(
            "core::mem::take",
            &[Replace {
                dst: 0,
                value: None,
                some: false,
            }],
        ),
        f("alloc::sync::Arc::new", &[Transparent]),
        f("alloc::rc::Rc::new", &[Transparent]),
        // Another handle to the same value.
        f("alloc::sync::Arc::clone", &[SharedClone(0)]),
        f("alloc::rc::Rc::clone", &[SharedClone(0)]),
        f("bool::then_some", &[SomeOf(1)]),
        // Iteration: the next item points where the iterator does, and getting it reads.
        f(
            "core::iter::traits::iterator::Iterator::next",
            &[Contents(0), ReadOwnedItems(0)],
        ),
        f("core::iter::traits::iterator::Iterator::zip", &[Zip]),
        f("core::iter::traits::iterator::Iterator::enumerate", &[Zip]),
        // Collections: a pushed value becomes an element.
        f("alloc::vec::Vec::push", &[Push { vec: 0, value: 1 }]),
        f("alloc::vec::Vec::insert", &[Push { vec: 0, value: 2 }]),
        f(
            "alloc::collections::vec_deque::VecDeque::push_back",
            &[Push { vec: 0, value: 1 }],
        ),
        f(
            "alloc::collections::vec_deque::VecDeque::push_front",
            &[Push { vec: 0, value: 1 }],
        ),
        // Maps and sets: the value moves in; nothing is read through it.
        f(
            "std::collections::hash::map::HashMap::insert",
            &[Push { vec: 0, value: 2 }],
        ),
        f(
            "alloc::collections::btree::map::BTreeMap::insert",
            &[Push { vec: 0, value: 2 }],
        ),
        f(
            "std::collections::hash::set::HashSet::insert",
            &[Push { vec: 0, value: 1 }],
        ),
        f(
            "alloc::collections::btree::set::BTreeSet::insert",
            &[Push { vec: 0, value: 1 }],
        ),
        // ... and an element taken out is what was pushed (a pool hands its buffers out again).
        f("alloc::vec::Vec::pop", &[Element(0)]),
        f("alloc::vec::Vec::remove", &[Element(0)]),
        f("alloc::vec::Vec::swap_remove", &[Element(0)]),
        f("alloc::collections::vec_deque::VecDeque::pop_front", &[Element(0)]),
        f("alloc::collections::vec_deque::VecDeque::pop_back", &[Element(0)]),
        f("alloc::collections::vec_deque::VecDeque::remove", &[Element(0)]),
        f("std::collections::hash::map::HashMap::remove", &[Element(0)]),
        f("alloc::collections::btree::map::BTreeMap::remove", &[Element(0)]),
        // Threads: the closure runs (here, as far as the analysis is concerned); joining hands
        // back what it returned. Joining waits for the thread, not for the work it enqueued.
        f("std::thread::functions::spawn", &[Spawn(0)]),
        f("std::thread::builder::Builder::spawn", &[Spawn(1)]),
        f("std::thread::scoped::Scope::spawn", &[Spawn(1)]),
        f("std::thread::scoped::scope", &[Spawn(0)]),
        f("std::thread::join_handle::JoinHandle::join", &[Join(0)]),
        f("std::thread::scoped::ScopedJoinHandle::join", &[Join(0)]),
        // Channels: a value sent is the receiver's at once (a concurrent thread).
        f("std::sync::mpsc::Sender::send", &[HandOff(1)]),
        f("std::sync::mpsc::SyncSender::send", &[HandOff(1)]),
        f("std::sync::mpsc::SyncSender::try_send", &[HandOff(1)]),
        // Drops and swaps.
        f("core::mem::drop", &[DropArg(0)]),
        // Emptying a collection drops its elements.
        f("alloc::vec::Vec::clear", &[DropElements(0)]),
        f("alloc::vec::Vec::truncate", &[DropElements(0)]),
        f("alloc::collections::vec_deque::VecDeque::clear", &[DropElements(0)]),
        f("std::collections::hash::map::HashMap::clear", &[DropElements(0)]),
        f("alloc::collections::btree::map::BTreeMap::clear", &[DropElements(0)]),
        f("core::mem::swap", &[Swap(0, 1)]),
    ],
    types: &[
        pageable("alloc::vec::Vec"),
        pageable("alloc::boxed::Box"),
        pageable("alloc::string::String"),
    ],
    // The C allocator (`malloc`, `free`, declared by the `libc` crate or in any `extern "C"`
    // block) is the shared C table's (`c_functions`): what it returns is pageable host memory
    // (seed 001's example 1 copies from `malloc` memory asynchronously).
    symbol_modules: &[],
};

const PAGEABLE: Target = Target::Mem(MemKind::Pageable);
