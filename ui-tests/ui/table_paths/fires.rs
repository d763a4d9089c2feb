//@rustc-env: CUDA_LINT_CHECK_TABLE_PATHS=only=cudarc::driver::safe::core::NoSuchType::new,cudarc::driver::safe::core::CudaStream::no_such_method,cudarc::driver::CudaStream,no_such_crate::f,cudarc::driver::safe::core::CudaStream::synchronize,cudarc::driver::safe::core::CudaSlice::clone
//@error-in-other-file: table path does not resolve: `cudarc::driver::safe::core::NoSuchType::new`
//@error-in-other-file: table path does not resolve: `cudarc::driver::safe::core::CudaStream::no_such_method`
//@error-in-other-file: table path does not resolve: `cudarc::driver::CudaStream`
//@error-in-other-file: table path does not resolve: `no_such_crate::f`
// The check of the API tables' paths fires on paths that do not resolve (`only=`: these paths,
// not the tables, which `cudarc_and_runtime.rs` checks): an item that does not exist, a method
// a type does not have, a re-export path (`cudarc::driver::CudaStream` is defined in
// `cudarc::driver::safe::core`: tables spell definition paths), and a crate that is not loaded.
// The last two paths resolve (an inherent method, a trait impl's method), and are not reported.
extern crate cuda_lint_runtime;
extern crate cudarc;

fn main() {}
