//! Minimal hand-written MPI bindings, MPICH ABI (handles are `int`s).
//!
//! Only what the corpus programs call. Linking is left to the final binary
//! (`-lmpi` from a CUDA-aware MPICH / MVAPICH2 build).

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_int, c_void};

pub type MPI_Comm = c_int;
pub type MPI_Datatype = c_int;
pub type MPI_Op = c_int;
pub type MPI_Request = c_int;

pub const MPI_SUCCESS: c_int = 0;

pub const MPI_COMM_WORLD: MPI_Comm = 0x4400_0000;
pub const MPI_COMM_SELF: MPI_Comm = 0x4400_0001;

pub const MPI_CHAR: MPI_Datatype = 0x4c00_0101;
pub const MPI_BYTE: MPI_Datatype = 0x4c00_010d;
pub const MPI_INT: MPI_Datatype = 0x4c00_0405;
pub const MPI_UNSIGNED: MPI_Datatype = 0x4c00_0406;
pub const MPI_FLOAT: MPI_Datatype = 0x4c00_040a;
pub const MPI_DOUBLE: MPI_Datatype = 0x4c00_080b;
pub const MPI_INT64_T: MPI_Datatype = 0x4c00_083a;

pub const MPI_MAX: MPI_Op = 0x5800_0001;
pub const MPI_MIN: MPI_Op = 0x5800_0002;
pub const MPI_SUM: MPI_Op = 0x5800_0003;

pub const MPI_REQUEST_NULL: MPI_Request = 0x2c00_0000;

pub const MPI_ANY_SOURCE: c_int = -2;
pub const MPI_ANY_TAG: c_int = -1;
pub const MPI_PROC_NULL: c_int = -1;

/// `MPI_IN_PLACE` is `(void *) -1` in MPICH.
pub const MPI_IN_PLACE: *mut c_void = -1isize as *mut c_void;

#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MPI_Status {
    pub count_lo: c_int,
    pub count_hi_and_cancelled: c_int,
    pub MPI_SOURCE: c_int,
    pub MPI_TAG: c_int,
    pub MPI_ERROR: c_int,
}

/// `MPI_STATUS_IGNORE` is `(MPI_Status *) 1` in MPICH.
pub const MPI_STATUS_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;
/// `MPI_STATUSES_IGNORE` is `(MPI_Status *) 1` in MPICH.
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;

unsafe extern "C" {
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
    pub fn MPI_Recv(
        buf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        source: c_int,
        tag: c_int,
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
    pub fn MPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status) -> c_int;
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
    pub fn MPI_Alltoall(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
        comm: MPI_Comm,
    ) -> c_int;
    pub fn MPI_Barrier(comm: MPI_Comm) -> c_int;
}
