//! CUDA-aware MPI (Open MPI, MVAPICH2, MPICH with CUDA support): its calls take host and device
//! memory alike and use it on the host's timeline, in no stream's order. A blocking call reads its
//! send buffer and writes its receive buffer before it returns; a nonblocking one uses them from
//! the call until its request is completed (`MPI_Wait`, `MPI_Waitall`, `MPI_Test` polled until
//! done). Argument positions follow the C bindings of the MPI standard (4.1).

use crate::Effect::*;
use crate::{Family, Function};

const fn mpi(names: &'static [&'static str], arity: usize, effects: &'static [crate::Effect]) -> Function {
    crate::function(Family::Mpi, names, arity, effects)
}

/// Reads its first argument before returning (`MPI_Send(buf, count, type, dest, tag, comm)`).
const SENDS_0: &[crate::Effect] = &[UsedByLibrary { mem: 0, write: false }];
/// Reads `send`, writes `recv` before returning (a collective).
const fn collective(send: usize, recv: usize) -> [crate::Effect; 2] {
    [
        UsedByLibrary {
            mem: send,
            write: false,
        },
        UsedByLibrary { mem: recv, write: true },
    ]
}
const COLLECTIVE_0_1: &[crate::Effect] = &collective(0, 1);
const COLLECTIVE_0_3: &[crate::Effect] = &collective(0, 3);
const COLLECTIVE_0_4: &[crate::Effect] = &collective(0, 4);

/// A nonblocking operation that reads `reads` and writes `writes` until `request` completes.
const fn starts(reads: Option<usize>, writes: Option<usize>, request: usize) -> [crate::Effect; 1] {
    [StartsRequest { reads, writes, request }]
}

/// Completes the array of requests argument 1 points to (`MPI_Waitall(count, requests, ..)`).
const ARRAY_1: &[crate::Effect] = &[CompletesRequests {
    requests: 1,
    array: true,
}];

pub(crate) static FUNCTIONS: &[Function] = &[
    // Blocking point-to-point.
    mpi(&["MPI_Send", "MPI_Ssend", "MPI_Rsend", "MPI_Bsend"], 6, SENDS_0),
    mpi(&["MPI_Recv"], 7, &[UsedByLibrary { mem: 0, write: true }]),
    // `MPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
    // source, recvtag, comm, status)`.
    mpi(&["MPI_Sendrecv"], 12, &collective(0, 5)),
    // Reads and writes one buffer (a write races with any use).
    mpi(&["MPI_Sendrecv_replace"], 9, &[UsedByLibrary { mem: 0, write: true }]),
    // Blocking collectives. `MPI_Bcast` reads at the root and writes elsewhere: a write.
    mpi(&["MPI_Bcast"], 5, &[UsedByLibrary { mem: 0, write: true }]),
    // `(sendbuf, recvbuf, count, type, op, [root,] comm)`; `MPI_IN_PLACE` as `sendbuf` names no
    // memory, and the receive buffer, written, is read too.
    mpi(&["MPI_Reduce"], 7, COLLECTIVE_0_1),
    mpi(
        &[
            "MPI_Allreduce",
            "MPI_Scan",
            "MPI_Exscan",
            "MPI_Reduce_scatter",
            "MPI_Reduce_scatter_block",
        ],
        6,
        COLLECTIVE_0_1,
    ),
    // `(sendbuf, sendcount, sendtype, recvbuf, ...)`.
    mpi(&["MPI_Gather", "MPI_Scatter"], 8, COLLECTIVE_0_3),
    mpi(&["MPI_Allgather", "MPI_Alltoall"], 7, COLLECTIVE_0_3),
    mpi(&["MPI_Gatherv"], 9, COLLECTIVE_0_3),
    mpi(&["MPI_Allgatherv"], 8, COLLECTIVE_0_3),
    // `(sendbuf, sendcounts, displs, sendtype, recvbuf, ...)`.
    mpi(&["MPI_Scatterv", "MPI_Alltoallv"], 9, COLLECTIVE_0_4),
    // Nonblocking point-to-point: `(buf, count, type, peer, tag, comm, request)`.
    mpi(
        &["MPI_Isend", "MPI_Issend", "MPI_Irsend", "MPI_Ibsend"],
        7,
        &starts(Some(0), None, 6),
    ),
    mpi(&["MPI_Irecv"], 7, &starts(None, Some(0), 6)),
    // Nonblocking collectives.
    mpi(&["MPI_Ibcast"], 6, &starts(None, Some(0), 5)),
    mpi(
        &["MPI_Iallreduce", "MPI_Iscan", "MPI_Iexscan"],
        7,
        &starts(Some(0), Some(1), 6),
    ),
    mpi(&["MPI_Ireduce"], 8, &starts(Some(0), Some(1), 7)),
    mpi(&["MPI_Iallgather", "MPI_Ialltoall"], 8, &starts(Some(0), Some(3), 7)),
    mpi(&["MPI_Igather", "MPI_Iscatter"], 9, &starts(Some(0), Some(3), 8)),
    // Completion: `MPI_Wait(request, status)`, `MPI_Waitall(count, requests, statuses)`.
    // `MPI_Waitany`/`MPI_Waitsome` complete requests the analysis cannot name: taken to complete
    // them all (a finding needs evidence).
    mpi(
        &["MPI_Wait"],
        2,
        &[CompletesRequests {
            requests: 0,
            array: false,
        }],
    ),
    mpi(&["MPI_Waitall"], 3, ARRAY_1),
    mpi(&["MPI_Waitany"], 4, ARRAY_1),
    mpi(&["MPI_Waitsome"], 5, ARRAY_1),
    // `MPI_Test(request, flag, status)`: completes the request when polled until the flag is set.
    // `MPI_Testall(count, requests, flag, statuses)`, `MPI_Testany(count, requests, index, flag,
    // status)`, `MPI_Testsome(incount, requests, outcount, indices, statuses)`.
    mpi(&["MPI_Test"], 3, &[TestsRequests { requests: 0, flag: 1 }]),
    mpi(&["MPI_Testall"], 4, &[TestsRequests { requests: 1, flag: 2 }]),
    mpi(&["MPI_Testany"], 5, &[TestsRequests { requests: 1, flag: 3 }]),
    mpi(&["MPI_Testsome"], 5, &[TestsRequests { requests: 1, flag: 2 }]),
    // Touch no buffer (a barrier completes no request and waits for no CUDA work).
    mpi(&["MPI_Init", "MPI_Finalize", "MPI_Abort"], 2, &[NoAccess]),
    mpi(&["MPI_Init_thread"], 4, &[NoAccess]),
    mpi(
        &[
            "MPI_Comm_rank",
            "MPI_Comm_size",
            "MPI_Barrier",
            "MPI_Request_free",
            "MPI_Get_count",
        ],
        3,
        &[NoAccess],
    ),
];
