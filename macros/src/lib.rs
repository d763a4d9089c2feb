//! Attributes users write in source to talk to cuda-lint: suppression, the effects of their own
//! wrappers, and typed kernels. See `macros/README.md`.
//!
//! The package is `cuda-lint-macros`; the library is named `cuda_lint`, so that with
//! `cuda_lint = { package = "cuda-lint-macros", .. }` in `Cargo.toml` the attributes read
//! `#[cuda_lint::allow(..)]`, `#[cuda_lint::synchronizes(..)]` and so on.
//!
//! Every attribute leaves a plain build untouched: it emits the item as written (typed kernels
//! add their generated code), with no attribute a stable compiler would not know. Only when
//! `cargo cuda-lint` compiles the crate, which sets `CUDA_LINT_ACTIVE=1` and registers the tools
//! `cuda_lint` and `cuda_lint_summary`, do they also emit the lint attributes
//! (`#[allow(cuda_lint::NAME)]`) and the summaries the lint reads
//! (`#[cuda_lint_summary::effect(..)]`).
//!
//! The work is done over `proc_macro2` in the modules below, so it is unit-tested; this file
//! only connects it to `proc_macro`.

use proc_macro::TokenStream;

mod args;
mod effects;
mod kernels;
mod suppress;

/// Whether `cargo cuda-lint` is compiling this crate: `CUDA_LINT_ACTIVE` set (and not empty or
/// `0`).
fn active() -> bool {
    std::env::var_os("CUDA_LINT_ACTIVE").is_some_and(|v| !v.is_empty() && v != "0")
}

/// The expansion, or the error followed by the item as written (so the error is the only one).
fn finish(result: syn::Result<proc_macro2::TokenStream>, item: proc_macro2::TokenStream) -> TokenStream {
    match result {
        Ok(tokens) => tokens.into(),
        Err(e) => {
            let mut out = e.to_compile_error();
            out.extend(item);
            out.into()
        }
    }
}

/// `#[cuda_lint::allow(missing_sync, reason = "...")]`: allows the named cuda-lint lints (or
/// `all`) on an item, like `#[allow(cuda_lint::missing_sync)]` but harmless in a plain build.
/// The lints are those `cargo cuda-lint --list` shows ([LINTS.md](https://github.com/cuda-lint/cuda-lint/blob/main/LINTS.md)).
#[proc_macro_attribute]
pub fn allow(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    finish(suppress::allow(attr.into(), item.clone(), active()), item)
}

/// `#[cuda_lint::synchronizes(stream)]` or `#[cuda_lint::synchronizes(all)]`: the function
/// waits for all work of its parameter `stream`, or for all work of the context.
#[proc_macro_attribute]
pub fn synchronizes(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    finish(effects::synchronizes(attr.into(), item.clone(), active()), item)
}

/// `#[cuda_lint::copies_async(htod, dst = out, src = input, stream = s)]`: the function enqueues
/// an asynchronous copy from parameter `src` to parameter `dst` on stream `s`. The direction
/// (`htod`, `dtoh`, `dtod`) is optional: without it the lint infers it from the memory kinds.
#[proc_macro_attribute]
pub fn copies_async(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    finish(effects::copies_async(attr.into(), item.clone(), active()), item)
}

/// `#[cuda_lint::launches(stream = s, reads(a, b), writes(out))]`: the function enqueues work on
/// stream `s` that reads and writes the memory of the listed parameters.
#[proc_macro_attribute]
pub fn launches(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    finish(effects::launches(attr.into(), item.clone(), active()), item)
}

/// `#[cuda_lint::returns(pinned)]`: the function returns newly allocated memory of that kind
/// (`pinned`, `device`, `managed` or `pageable`), also inside a `Result` or `Option`.
#[proc_macro_attribute]
pub fn returns(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    finish(effects::returns(attr.into(), item.clone(), active()), item)
}

/// `#[cuda_lint::kernels(file = "kernels/scale.cu")] pub mod scale {}` (a path relative to the
/// crate root) or `#[cuda_lint::kernels(source = r#"..."#)] mod k {}`: typed launches of the
/// `extern "C" __global__` kernels of that CUDA C++ source. The module gets `SOURCE`, and
/// `Kernels` with `Kernels::load(&ctx)` and one `unsafe fn NAME(&self, stream, cfg, args..)`
/// per kernel, whose argument types follow the kernel's parameters.
#[proc_macro_attribute]
pub fn kernels(attr: TokenStream, item: TokenStream) -> TokenStream {
    let item = proc_macro2::TokenStream::from(item);
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").map(std::path::PathBuf::from);
    finish(
        kernels::kernels(attr.into(), item.clone(), manifest_dir.as_deref(), active()),
        item,
    )
}
