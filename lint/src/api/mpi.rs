//! CUDA-aware MPI through raw bindings (a crate's own `extern "C"` block, `mpi-sys`): its C
//! functions are the shared table's (`lint/c-api/src/mpi.rs`, through [`super::c_functions`]);
//! this family only names them. Its operations carry MPI's advice
//! (`cuda_lint_c_api::MPI_ADVICE`); the advice diagnostics give for the CUDA API in use stays
//! that API's ([`ApiFamily::advises`]).

use super::ApiFamily;

pub static FAMILY: ApiFamily = ApiFamily {
    name: "mpi",
    advice: cuda_lint_c_api::MPI_ADVICE,
    crates: &[],
    functions: &[],
    types: &[],
    symbol_modules: &[],
};
