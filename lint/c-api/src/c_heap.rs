//! The C library's allocator and memory functions: what they return is pageable host memory,
//! released by `free`; `memcpy` and `memset` are the host reading and writing memory.

use crate::Effect::*;
use crate::{Allocator, Family, Function, MemKind};

const fn c(names: &'static [&'static str], arity: usize, effects: &'static [crate::Effect]) -> Function {
    crate::function(Family::CHeap, names, arity, effects)
}

const ALLOC_RET: crate::Effect = AllocRet {
    kind: MemKind::Pageable,
    by: Allocator::CHeap,
};

/// Returns new memory of its first argument's size (`malloc(bytes)`).
const HOLDS_0: &[crate::Effect] = &[ALLOC_RET, Holds { bytes: 0, times: None }];

pub(crate) static FUNCTIONS: &[Function] = &[
    c(&["malloc", "valloc", "pvalloc"], 1, HOLDS_0),
    c(
        &["calloc"],
        2,
        &[
            ALLOC_RET,
            Holds {
                bytes: 0,
                times: Some(1),
            },
        ],
    ),
    c(
        &["realloc", "aligned_alloc", "memalign"],
        2,
        &[ALLOC_RET, Holds { bytes: 1, times: None }],
    ),
    c(&["_aligned_malloc"], 2, HOLDS_0),
    c(&["reallocarray"], 3, &[ALLOC_RET]),
    // `posix_memalign(&p, alignment, size)`.
    c(
        &["posix_memalign"],
        3,
        &[AllocOut {
            out: 0,
            kind: MemKind::Pageable,
            by: Allocator::CHeap,
        }],
    ),
    c(
        &["free"],
        1,
        &[Free {
            mem: 0,
            by: Allocator::CHeap,
            waits_implicitly: false,
        }],
    ),
    c(
        &["memcpy", "memmove"],
        3,
        &[HostAccess { mem: 1, write: false }, HostAccess { mem: 0, write: true }],
    ),
    c(&["memset"], 3, &[HostAccess { mem: 0, write: true }]),
];
