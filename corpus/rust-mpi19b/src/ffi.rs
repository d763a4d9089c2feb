//! Hand-written bindings to the subset of MPI these programs use, laid out as Open MPI's
//! `mpi.h` declares it: every handle is an opaque pointer, and the predefined handles
//! (`MPI_COMM_WORLD`, `MPI_DOUBLE`, `MPI_SUM`, ...) are the addresses of exported
//! `ompi_mpi_*` objects. The library is CUDA-aware: device pointers may be passed as buffers.

#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals)]

use std::ffi::{c_int, c_void};

pub type MPI_Comm = *mut c_void;
pub type MPI_Datatype = *mut c_void;
pub type MPI_Op = *mut c_void;
pub type MPI_Request = *mut c_void;

/// `MPI_Status` as Open MPI lays it out.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct MPI_Status {
    pub MPI_SOURCE: c_int,
    pub MPI_TAG: c_int,
    pub MPI_ERROR: c_int,
    pub _cancelled: c_int,
    pub _ucount: usize,
}

/// The predefined objects are C structs whose layout we never need.
#[repr(C)]
pub struct ompi_predefined_t {
    _opaque: [u8; 0],
}

pub const MPI_SUCCESS: c_int = 0;
pub const MPI_ANY_SOURCE: c_int = -1;
pub const MPI_ANY_TAG: c_int = -1;
pub const MPI_PROC_NULL: c_int = -2;
/// Open MPI: `#define MPI_IN_PLACE ((void *) 1)`.
pub const MPI_IN_PLACE: *mut c_void = 1 as *mut c_void;
pub const MPI_STATUS_IGNORE: *mut MPI_Status = std::ptr::null_mut();
pub const MPI_STATUSES_IGNORE: *mut MPI_Status = std::ptr::null_mut();

unsafe extern "C" {
    pub static mut ompi_mpi_comm_world: ompi_predefined_t;
    pub static mut ompi_mpi_float: ompi_predefined_t;
    pub static mut ompi_mpi_double: ompi_predefined_t;
    pub static mut ompi_mpi_int: ompi_predefined_t;
    pub static mut ompi_mpi_unsigned: ompi_predefined_t;
    pub static mut ompi_mpi_byte: ompi_predefined_t;
    pub static mut ompi_mpi_op_sum: ompi_predefined_t;
    pub static mut ompi_mpi_op_max: ompi_predefined_t;
    pub static mut ompi_mpi_op_min: ompi_predefined_t;
    pub static mut ompi_request_null: ompi_predefined_t;
}

/// `MPI_COMM_WORLD`.
pub fn comm_world() -> MPI_Comm {
    unsafe { (&raw mut ompi_mpi_comm_world).cast() }
}
/// `MPI_FLOAT`.
pub fn dt_float() -> MPI_Datatype {
    unsafe { (&raw mut ompi_mpi_float).cast() }
}
/// `MPI_DOUBLE`.
pub fn dt_double() -> MPI_Datatype {
    unsafe { (&raw mut ompi_mpi_double).cast() }
}
/// `MPI_INT`.
pub fn dt_int() -> MPI_Datatype {
    unsafe { (&raw mut ompi_mpi_int).cast() }
}
/// `MPI_UNSIGNED`.
pub fn dt_unsigned() -> MPI_Datatype {
    unsafe { (&raw mut ompi_mpi_unsigned).cast() }
}
/// `MPI_BYTE`.
pub fn dt_byte() -> MPI_Datatype {
    unsafe { (&raw mut ompi_mpi_byte).cast() }
}
/// `MPI_SUM`.
pub fn op_sum() -> MPI_Op {
    unsafe { (&raw mut ompi_mpi_op_sum).cast() }
}
/// `MPI_MAX`.
pub fn op_max() -> MPI_Op {
    unsafe { (&raw mut ompi_mpi_op_max).cast() }
}
/// `MPI_MIN`.
pub fn op_min() -> MPI_Op {
    unsafe { (&raw mut ompi_mpi_op_min).cast() }
}
/// `MPI_REQUEST_NULL`.
pub fn request_null() -> MPI_Request {
    unsafe { (&raw mut ompi_request_null).cast() }
}

unsafe extern "C" {
    pub fn MPI_Init(argc: *mut c_int, argv: *mut *mut *mut std::ffi::c_char) -> c_int;
    pub fn MPI_Finalize() -> c_int;
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
    pub fn MPI_Cancel(request: *mut MPI_Request) -> c_int;
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
    pub fn MPI_Allreduce(
        sendbuf: *const c_void,
        recvbuf: *mut c_void,
        count: c_int,
        datatype: MPI_Datatype,
        op: MPI_Op,
        comm: MPI_Comm,
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
    pub fn MPI_Alltoall(
        sendbuf: *const c_void,
        sendcount: c_int,
        sendtype: MPI_Datatype,
        recvbuf: *mut c_void,
        recvcount: c_int,
        recvtype: MPI_Datatype,
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
    pub fn MPI_Barrier(comm: MPI_Comm) -> c_int;
}

/// An MPI call that returned something other than `MPI_SUCCESS`.
#[derive(Debug)]
pub struct MpiError {
    pub call: &'static str,
    pub code: c_int,
}

impl std::fmt::Display for MpiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} failed with MPI error {}", self.call, self.code)
    }
}

impl std::error::Error for MpiError {}

/// Turns an MPI return code into a `Result`.
pub fn check(call: &'static str, code: c_int) -> Result<(), MpiError> {
    if code == MPI_SUCCESS { Ok(()) } else { Err(MpiError { call, code }) }
}

/// This process's rank and the communicator's size.
pub fn rank_and_size(comm: MPI_Comm) -> Result<(c_int, c_int), MpiError> {
    let (mut rank, mut size) = (0, 0);
    check("MPI_Comm_rank", unsafe { MPI_Comm_rank(comm, &mut rank) })?;
    check("MPI_Comm_size", unsafe { MPI_Comm_size(comm, &mut size) })?;
    Ok((rank, size))
}
