//! Raw bindings to a CUDA-aware MPI library (MPICH ABI: handles are `int`s).
//!
//! Only what the corpus uses is declared. The library is never linked: the crate only
//! type-checks.
#![allow(non_camel_case_types)]
#![allow(non_snake_case)]

use std::ffi::{c_char, c_int, c_void};

pub type MPI_Comm = c_int;
pub type MPI_Datatype = c_int;
pub type MPI_Request = c_int;
pub type MPI_Op = c_int;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MPI_Status {
    pub count_lo: c_int,
    pub count_hi_and_cancelled: c_int,
    pub MPI_SOURCE: c_int,
    pub MPI_TAG: c_int,
    pub MPI_ERROR: c_int,
}

pub const MPI_SUCCESS: c_int = 0;
pub const MPI_COMM_WORLD: MPI_Comm = 0x4400_0000;
pub const MPI_COMM_NULL: MPI_Comm = 0x0400_0000;
pub const MPI_REQUEST_NULL: MPI_Request = 0x2c00_0000;

pub const MPI_BYTE: MPI_Datatype = 0x4c00_010d;
pub const MPI_INT: MPI_Datatype = 0x4c00_0405;
pub const MPI_UNSIGNED: MPI_Datatype = 0x4c00_0406;
pub const MPI_FLOAT: MPI_Datatype = 0x4c00_040a;
pub const MPI_DOUBLE: MPI_Datatype = 0x4c00_080b;

pub const MPI_MAX: MPI_Op = 0x5800_0001;
pub const MPI_MIN: MPI_Op = 0x5800_0002;
pub const MPI_SUM: MPI_Op = 0x5800_0003;

pub const MPI_ANY_SOURCE: c_int = -2;
pub const MPI_ANY_TAG: c_int = -1;
pub const MPI_PROC_NULL: c_int = -1;

pub const MPI_STATUS_IGNORE: *mut MPI_Status = std::ptr::null_mut();
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = std::ptr::null_mut();
pub const MPI_IN_PLACE: *mut c_void = 1 as *mut c_void;

unsafe extern "C" {
    pub fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int;
    pub fn MPI_Finalize() -> c_int;
    pub fn MPI_Abort(comm: MPI_Comm, errorcode: c_int) -> c_int;
    pub fn MPI_Comm_rank(comm: MPI_Comm, rank: *mut c_int) -> c_int;
    pub fn MPI_Comm_size(comm: MPI_Comm, size: *mut c_int) -> c_int;

    pub fn MPI_Send(
        buf: *const c_void,
        count: c_int,
        datatype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Ssend(
        buf: *const c_void,
        count: c_int,
        datatype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Recv(
        buf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        source: c_int,
        tag: c_int,
        comm: MPI_Comm,
        status: *mut MPI_Status,
    ) -> c_int;
    pub fn MPI_Sendrecv(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        dest: c_int,
        sendtag: c_int,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        source: c_int,
        recvtag: c_int,
        comm: MPI_Comm,
        status: *mut MPI_Status,
    ) -> c_int;
    pub fn MPI_Sendrecv_replace(
        buf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        dest: c_int,
        sendtag: c_int,
        source: c_int,
        recvtag: c_int,
        comm: MPI_Comm,
        status: *mut MPI_Status,
    ) -> c_int;

    pub fn MPI_Isend(
        buf: *const c_void,
        count: c_int,
        datatype: MPI_Datatype,
        dest: c_int,
        tag: c_int,
        comm: MPI_Comm,
        request: *mut MPI_Request,
    ) -> c_int;
    pub fn MPI_Irecv(
        buf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        source: c_int,
        tag: c_int,
        comm: MPI_Comm,
        request: *mut MPI_Request,
    ) -> c_int;
    pub fn MPI_Wait(request: *mut MPI_Request, status: *mut MPI_Status) -> c_int;
    pub fn MPI_Waitall(
        count: c_int,
        array_of_requests: *mut MPI_Request,
        array_of_statuses: *mut MPI_Status,
    ) -> c_int;
    pub fn MPI_Waitany(
        count: c_int,
        array_of_requests: *mut MPI_Request,
        index: *mut c_int,
        status: *mut MPI_Status,
    ) -> c_int;
    pub fn MPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status) -> c_int;
    pub fn MPI_Testall(
        count: c_int,
        array_of_requests: *mut MPI_Request,
        flag: *mut c_int,
        array_of_statuses: *mut MPI_Status,
    ) -> c_int;

    pub fn MPI_Barrier(comm: MPI_Comm) -> c_int;
    pub fn MPI_Bcast(
        buffer: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Reduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        op: MPI_Op,
        root: c_int,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Allreduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        op: MPI_Op,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Iallreduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        op: MPI_Op,
        comm: MPI_Comm,
        request: *mut MPI_Request,
    ) -> c_int;
    pub fn MPI_Allgather(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Gather(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        root: c_int,
        comm: MPI_Comm,
    ) -> c_int;
}

/// The calling rank in `MPI_COMM_WORLD`.
pub fn world_rank() -> c_int {
    let mut rank: c_int = 0;
    mpi_check(unsafe { MPI_Comm_rank(MPI_COMM_WORLD, &mut rank) }, "MPI_Comm_rank");
    rank
}

/// The number of ranks in `MPI_COMM_WORLD`.
pub fn world_size() -> c_int {
    let mut size: c_int = 0;
    mpi_check(unsafe { MPI_Comm_size(MPI_COMM_WORLD, &mut size) }, "MPI_Comm_size");
    size
}

/// MPI errors are fatal for the whole job: report and abort every rank, as
/// `MPI_ERRORS_ARE_FATAL` would.
pub fn mpi_check(rc: c_int, call: &str) {
    if rc != MPI_SUCCESS {
        eprintln!("{call} failed with error code {rc}");
        unsafe {
            MPI_Abort(MPI_COMM_WORLD, rc);
        }
        std::process::abort();
    }
}
