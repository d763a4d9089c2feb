//! The one error type of the runtime layer.
//!
//! Every fallible call returns [`Result<T>`]. A failed driver call keeps the name of the entry
//! point that failed (`"cuMemAlloc_v2"`), the `CUresult` value, and what `cuGetErrorName` and
//! `cuGetErrorString` say about it, so that the message reads like CUDA's own:
//!
//! ```text
//! cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)
//! ```

use std::fmt;

/// `Result` with [`Error`] as its error type.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything that can go wrong in the runtime layer.
///
/// Nothing in this crate panics on a missing driver, a missing device or a failed allocation: each
/// of them is one of these variants. Use [`Error::is_unavailable`] to tell "there is no CUDA here"
/// (skip) from "CUDA is here and something failed" (report).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// A CUDA driver API call returned something other than `CUDA_SUCCESS`.
    Driver {
        /// The driver entry point that failed, e.g. `"cuMemAlloc_v2"`.
        call: &'static str,
        /// The raw `CUresult` value, e.g. `2` for `CUDA_ERROR_OUT_OF_MEMORY`.
        code: u32,
        /// The error's name from `cuGetErrorName`, e.g. `"CUDA_ERROR_OUT_OF_MEMORY"`.
        name: String,
        /// The error's text from `cuGetErrorString`, e.g. `"out of memory"`.
        description: String,
    },
    /// The CUDA driver library (`libcuda.so`) could not be loaded or is unusable (a stub library,
    /// or a driver that lacks an entry point this crate calls).
    NoDriver {
        /// What was tried and what the dynamic loader or the driver said.
        reason: String,
    },
    /// The driver is loaded but reports no CUDA device (`cuInit` returned
    /// `CUDA_ERROR_NO_DEVICE`, or `cuDeviceGetCount` returned 0).
    NoDevice,
    /// An NVRTC call failed (`nvrtcCompileProgram`, ...).
    Nvrtc {
        /// The NVRTC entry point that failed, e.g. `"nvrtcCompileProgram"`.
        call: &'static str,
        /// The `nvrtcResult` name from `nvrtcGetErrorString`, e.g. `"NVRTC_ERROR_COMPILATION"`.
        name: String,
        /// The program log (`nvrtcGetProgramLog`) when there is one: the compiler's diagnostics.
        log: Option<String>,
    },
    /// The NVRTC library (`libnvrtc.so`) could not be loaded.
    NoNvrtc {
        /// What was tried and what the dynamic loader said.
        reason: String,
    },
    /// A copy whose destination and source lengths (in elements) differ. Checked before anything
    /// is enqueued, so nothing was done.
    LengthMismatch {
        /// The driver call that would have been made, e.g. `"cuMemcpyHtoDAsync_v2"`.
        call: &'static str,
        /// Elements in the destination.
        dst_len: usize,
        /// Elements in the source.
        src_len: usize,
    },
    /// An argument this crate rejects before calling the driver (a size that overflows, a size
    /// that is not a multiple of the VMM granularity, a string with an interior NUL, ...).
    InvalidArgument {
        /// The driver call the argument was meant for, e.g. `"cuMemCreate"`.
        call: &'static str,
        /// Why it was rejected.
        reason: String,
    },
    /// The device or driver does not support what was asked (e.g. VMM on a device whose
    /// `CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED` is 0).
    Unsupported {
        /// What is not supported.
        what: String,
    },
}

impl Error {
    /// True when CUDA is not available here at all: no driver library ([`Error::NoDriver`]) or no
    /// device ([`Error::NoDevice`]). Examples and tests use this to skip instead of failing.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, Error::NoDriver { .. } | Error::NoDevice)
    }

    /// The CUDA error name (`"CUDA_ERROR_OUT_OF_MEMORY"`) of an [`Error::Driver`], or the NVRTC
    /// result name of an [`Error::Nvrtc`]; `None` for the other variants.
    pub fn cuda_error_name(&self) -> Option<&str> {
        match self {
            Error::Driver { name, .. } | Error::Nvrtc { name, .. } => Some(name),
            _ => None,
        }
    }

    /// The driver or NVRTC entry point that failed (or would have been called), when known.
    pub fn call(&self) -> Option<&'static str> {
        match self {
            Error::Driver { call, .. }
            | Error::Nvrtc { call, .. }
            | Error::LengthMismatch { call, .. }
            | Error::InvalidArgument { call, .. } => Some(call),
            _ => None,
        }
    }

    pub(crate) fn invalid(call: &'static str, reason: impl Into<String>) -> Error {
        Error::InvalidArgument {
            call,
            reason: reason.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Driver {
                call,
                name,
                description,
                ..
            } => write!(f, "{call} failed: {name} ({description})"),
            Error::NoDriver { reason } => write!(f, "CUDA driver not available: {reason}"),
            Error::NoDevice => {
                f.write_str("no CUDA device: the driver is loaded but reports no device (cuInit/cuDeviceGetCount)")
            }
            Error::Nvrtc { call, name, log } => {
                write!(f, "{call} failed: {name}")?;
                match log.as_deref().map(str::trim) {
                    Some(log) if !log.is_empty() => write!(f, "\nNVRTC program log:\n{log}"),
                    _ => Ok(()),
                }
            }
            Error::NoNvrtc { reason } => write!(f, "NVRTC not available: {reason}"),
            Error::LengthMismatch { call, dst_len, src_len } => write!(
                f,
                "{call}: length mismatch: destination has {dst_len} elements, source has {src_len}"
            ),
            Error::InvalidArgument { call, reason } => {
                write!(f, "{call}: invalid argument: {reason}")
            }
            Error::Unsupported { what } => write!(f, "not supported: {what}"),
        }
    }
}

impl std::error::Error for Error {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn driver_error_reads_like_cuda() {
        let e = Error::Driver {
            call: "cuMemAlloc_v2",
            code: 2,
            name: "CUDA_ERROR_OUT_OF_MEMORY".into(),
            description: "out of memory".into(),
        };
        assert_eq!(
            e.to_string(),
            "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"
        );
        assert_eq!(e.cuda_error_name(), Some("CUDA_ERROR_OUT_OF_MEMORY"));
        assert_eq!(e.call(), Some("cuMemAlloc_v2"));
        assert!(!e.is_unavailable());
    }

    #[test]
    fn unavailable_variants() {
        let e = Error::NoDriver {
            reason: "dlopen libcuda.so: not found".into(),
        };
        assert!(e.is_unavailable());
        assert!(e.to_string().contains("dlopen libcuda.so: not found"));
        assert!(Error::NoDevice.is_unavailable());
        assert!(!Error::NoDevice.to_string().is_empty());
        assert!(!Error::NoNvrtc { reason: "x".into() }.is_unavailable());
        assert!(!Error::Unsupported { what: "VMM".into() }.is_unavailable());
    }

    #[test]
    fn nvrtc_error_includes_log() {
        let e = Error::Nvrtc {
            call: "nvrtcCompileProgram",
            name: "NVRTC_ERROR_COMPILATION".into(),
            log: Some("prog.cu(1): error: identifier \"x\" is undefined\n".into()),
        };
        let s = e.to_string();
        assert!(s.starts_with("nvrtcCompileProgram failed: NVRTC_ERROR_COMPILATION"));
        assert!(s.contains("identifier \"x\" is undefined"));
        let no_log = Error::Nvrtc {
            call: "nvrtcGetPTX",
            name: "NVRTC_ERROR_INVALID_INPUT".into(),
            log: None,
        };
        assert_eq!(no_log.to_string(), "nvrtcGetPTX failed: NVRTC_ERROR_INVALID_INPUT");
    }

    #[test]
    fn argument_errors() {
        let e = Error::LengthMismatch {
            call: "cuMemcpyHtoDAsync_v2",
            dst_len: 4,
            src_len: 3,
        };
        assert_eq!(
            e.to_string(),
            "cuMemcpyHtoDAsync_v2: length mismatch: destination has 4 elements, source has 3"
        );
        let e = Error::invalid("cuMemCreate", "size 3 is not a multiple of 2097152");
        assert_eq!(
            e.to_string(),
            "cuMemCreate: invalid argument: size 3 is not a multiple of 2097152"
        );
        let e: Box<dyn std::error::Error + Send + Sync> = Box::new(e);
        assert!(e.to_string().contains("cuMemCreate"));
    }
}
