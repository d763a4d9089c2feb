//! Minimal MPICH-style bindings: integer handles, the constants MPICH's `mpi.h` defines,
//! and the calls this corpus uses. Linked against a CUDA-aware MPICH at build time.

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use libc::{c_char, c_int, c_void};

pub type MPI_Comm = c_int;
pub type MPI_Datatype = c_int;
pub type MPI_Request = c_int;
pub type MPI_Op = c_int;

#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct MPI_Status {
    pub count_lo: c_int,
    pub count_hi_and_cancelled: c_int,
    pub MPI_SOURCE: c_int,
    pub MPI_TAG: c_int,
    pub MPI_ERROR: c_int,
}

pub const MPI_SUCCESS: c_int = 0;
pub const MPI_COMM_WORLD: MPI_Comm = 0x4400_0000;
pub const MPI_INT: MPI_Datatype = 0x4c00_0405;
pub const MPI_FLOAT: MPI_Datatype = 0x4c00_040a;
pub const MPI_DOUBLE: MPI_Datatype = 0x4c00_080b;
pub const MPI_SHORT: MPI_Datatype = 0x4c00_0203;
pub const MPI_SUM: MPI_Op = 0x5800_0003;
pub const MPI_MAX: MPI_Op = 0x5800_0001;
pub const MPI_REQUEST_NULL: MPI_Request = 0x2c00_0000;
pub const MPI_ANY_SOURCE: c_int = -2;
pub const MPI_ANY_TAG: c_int = -1;

pub const MPI_STATUS_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;
pub const MPI_IN_PLACE: *mut c_void = -1isize as *mut c_void;

unsafe extern "C" {
    pub fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut c_char) -> c_int;
    pub fn MPI_Finalize() -> c_int;
    pub fn MPI_Comm_rank(comm: MPI_Comm, rank: *mut c_int) -> c_int;
    pub fn MPI_Comm_size(comm: MPI_Comm, size: *mut c_int) -> c_int;
    pub fn MPI_Barrier(comm: MPI_Comm) -> c_int;

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
        requests: *mut MPI_Request,
        statuses: *mut MPI_Status,
    ) -> c_int;
    pub fn MPI_Test(request: *mut MPI_Request, flag: *mut c_int, status: *mut MPI_Status)
    -> c_int;
    pub fn MPI_Testall(
        count: c_int,
        requests: *mut MPI_Request,
        flag: *mut c_int,
        statuses: *mut MPI_Status,
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
}

/// An MPI call returned something other than `MPI_SUCCESS`.
#[derive(Debug, Clone, Copy)]
pub struct MpiError(pub c_int);

impl std::fmt::Display for MpiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MPI call failed with code {}", self.0)
    }
}

impl std::error::Error for MpiError {}

/// Turns an MPI return code into a `Result`.
pub fn check(rc: c_int) -> Result<(), MpiError> {
    if rc == MPI_SUCCESS { Ok(()) } else { Err(MpiError(rc)) }
}

/// This process's rank in `MPI_COMM_WORLD`.
pub fn world_rank() -> Result<c_int, MpiError> {
    let mut rank = 0;
    check(unsafe { MPI_Comm_rank(MPI_COMM_WORLD, &mut rank) })?;
    Ok(rank)
}

/// The number of processes in `MPI_COMM_WORLD`.
pub fn world_size() -> Result<c_int, MpiError> {
    let mut size = 0;
    check(unsafe { MPI_Comm_size(MPI_COMM_WORLD, &mut size) })?;
    Ok(size)
}
