//! Raw bindings to the parts of the MPI C API this crate uses, with MPICH's ABI: every handle
//! (`MPI_Comm`, `MPI_Datatype`, `MPI_Op`, `MPI_Request`) is a C `int` and the predefined
//! handles are the integer constants of MPICH's `mpi.h`. The application links `libmpi`
//! (a CUDA-aware build: MPICH with `--with-cuda`, MVAPICH2-GDR) through its build script.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case)]

use std::ffi::{c_char, c_int, c_void};
use std::fmt;

pub type MPI_Comm = c_int;
pub type MPI_Datatype = c_int;
pub type MPI_Op = c_int;
pub type MPI_Request = c_int;

/// `MPI_Status` as MPICH lays it out.
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
pub const MPI_ERR_OTHER: c_int = 15;
pub const MPI_ANY_SOURCE: c_int = -2;
pub const MPI_ANY_TAG: c_int = -1;
pub const MPI_PROC_NULL: c_int = -1;

pub const MPI_COMM_WORLD: MPI_Comm = 0x4400_0000;
pub const MPI_COMM_NULL: MPI_Comm = 0x0400_0000;

pub const MPI_BYTE: MPI_Datatype = 0x4c00_010d;
pub const MPI_INT: MPI_Datatype = 0x4c00_0405;
pub const MPI_UNSIGNED: MPI_Datatype = 0x4c00_0406;
pub const MPI_FLOAT: MPI_Datatype = 0x4c00_040a;
pub const MPI_DOUBLE: MPI_Datatype = 0x4c00_080b;

pub const MPI_MAX: MPI_Op = 0x5800_0001;
pub const MPI_MIN: MPI_Op = 0x5800_0002;
pub const MPI_SUM: MPI_Op = 0x5800_0003;

pub const MPI_REQUEST_NULL: MPI_Request = 0x2c00_0000;

pub const MPI_STATUS_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = 1 as *mut MPI_Status;
pub const MPI_IN_PLACE: *mut c_void = -1isize as *mut c_void;

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

/// An MPI call that returned something other than `MPI_SUCCESS`.
#[derive(Debug, Clone, Copy)]
pub struct MpiError {
    pub call: &'static str,
    pub code: c_int,
}

impl fmt::Display for MpiError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} failed with MPI error code {}", self.call, self.code)
    }
}

impl std::error::Error for MpiError {}

/// Turns an MPI return code into a `Result`.
pub fn mpi_check(code: c_int, call: &'static str) -> Result<(), MpiError> {
    if code == MPI_SUCCESS { Ok(()) } else { Err(MpiError { call, code }) }
}

/// This process's rank and the size of `comm`.
pub fn rank_and_size(comm: MPI_Comm) -> Result<(c_int, c_int), MpiError> {
    let mut rank: c_int = 0;
    let mut size: c_int = 0;
    mpi_check(unsafe { MPI_Comm_rank(comm, &mut rank) }, "MPI_Comm_rank")?;
    mpi_check(unsafe { MPI_Comm_size(comm, &mut size) }, "MPI_Comm_size")?;
    Ok((rank, size))
}
