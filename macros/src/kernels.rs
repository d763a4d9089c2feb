//! `#[cuda_lint::kernels(file = "..")]` / `#[cuda_lint::kernels(source = "..")]` on a module:
//! typed launches of the `extern "C" __global__` kernels of a CUDA C++ source.
//!
//! The source is read at compile time with `cuda_lint_cuda_source::kernel_signatures`; the
//! runtime compiles the same text with NVRTC (`Context::load_cuda`). Errors in the source point
//! at the `file`/`source` literal (a stable proc macro cannot point inside a literal) and give
//! the line and column in the CUDA text.

use std::path::Path;

use cuda_lint_cuda_source::{Fence, KernelParam, KernelSig, kernel_fence, kernel_signatures};
use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Item, Lit, LitStr};

use crate::args::{ArgKind, Value, parse_args};
use cuda_lint_protocol::summary::Summary;

/// The C types a typed kernel parameter may have (as a value or through one `*`), and the Rust
/// type each maps to. `std::` in front of the fixed-width ones is allowed.
const TYPES: &[(&str, &str)] = &[
    ("float", "f32"),
    ("double", "f64"),
    ("char", "i8"),
    ("signed char", "i8"),
    ("unsigned char", "u8"),
    ("short", "i16"),
    ("short int", "i16"),
    ("signed short", "i16"),
    ("signed short int", "i16"),
    ("unsigned short", "u16"),
    ("unsigned short int", "u16"),
    ("int", "i32"),
    ("signed", "i32"),
    ("signed int", "i32"),
    ("unsigned", "u32"),
    ("unsigned int", "u32"),
    ("long long", "i64"),
    ("long long int", "i64"),
    ("signed long long", "i64"),
    ("signed long long int", "i64"),
    ("unsigned long long", "u64"),
    ("unsigned long long int", "u64"),
    ("size_t", "usize"),
    ("int8_t", "i8"),
    ("uint8_t", "u8"),
    ("int16_t", "i16"),
    ("uint16_t", "u16"),
    ("int32_t", "i32"),
    ("uint32_t", "u32"),
    ("int64_t", "i64"),
    ("uint64_t", "u64"),
];

const SUPPORTED: &str = "supported: float, double, char, signed char, unsigned char, short, unsigned short, \
                         int, unsigned, unsigned int, long long, unsigned long long, size_t, \
                         int8_t..uint64_t, by value or through one `*`, `const` or `volatile`";

/// The names of the generated launch method's own parameters, which a kernel parameter is
/// renamed away from (with a `_` after it).
const RESERVED: &[&str] = &["self", "Self", "super", "crate", "stream", "cfg"];

/// The Rust type of C type `base`, if it has one here.
fn rust_type(base: &str) -> Option<&'static str> {
    let base = base.strip_prefix("::").unwrap_or(base);
    let base = base.strip_prefix("std::").unwrap_or(base);
    TYPES.iter().find(|(c, _)| *c == base).map(|(_, r)| *r)
}

/// How a kernel parameter is passed.
enum Pass {
    /// `const T*`: `&impl DeviceArg<T>`, read by the kernel.
    Read(Ident),
    /// `T*`: `&mut impl DeviceArg<T>`, read and written by the kernel.
    ReadWrite(Ident),
    /// A scalar, by value.
    Value(Ident),
}

struct Param {
    name: Ident,
    pass: Pass,
}

/// The kernels of one source, checked.
struct Kernel {
    sig: KernelSig,
    method: Ident,
    params: Vec<Param>,
    fenced: bool,
}

/// Where the source came from, for messages: `kernels/alias.cu` or `<source>`.
struct Origin {
    label: String,
    span: Span,
}

impl Origin {
    fn error(&self, line: usize, column: usize, message: impl std::fmt::Display) -> syn::Error {
        syn::Error::new(self.span, format!("{}:{line}:{column}: {message}", self.label))
    }
}

/// The module with its generated items; active, each launch method also carries its summary.
pub(crate) fn kernels(
    attr: TokenStream,
    item: TokenStream,
    manifest_dir: Option<&Path>,
    active: bool,
) -> syn::Result<TokenStream> {
    let form = "expected `#[cuda_lint::kernels(file = \"PATH\")]` (relative to the crate root) or \
                `#[cuda_lint::kernels(source = \"CUDA C++\")]`";
    let mut given: Option<(Ident, LitStr)> = None;
    for arg in parse_args(attr)? {
        let key = arg.key.to_string();
        match (key.as_str(), arg.kind) {
            ("file" | "source", ArgKind::Value(Value::Lit(Lit::Str(lit)))) => {
                if given.is_some() {
                    return Err(syn::Error::new(
                        arg.key.span(),
                        "give either `file = \"PATH\"` or `source = \"CUDA C++\"`, once",
                    ));
                }
                given = Some((arg.key, lit));
            }
            ("file" | "source", ArgKind::Value(other)) => {
                return Err(syn::Error::new(
                    other.span(),
                    format!("`{key}` must be a string literal"),
                ));
            }
            _ => return Err(syn::Error::new(arg.key.span(), form)),
        }
    }
    let Some((key, lit)) = given else {
        return Err(syn::Error::new(Span::call_site(), form));
    };
    let module: syn::ItemMod = match syn::parse2::<Item>(item) {
        Ok(Item::Mod(m)) => m,
        _ => {
            return Err(syn::Error::new(
                Span::call_site(),
                "`#[cuda_lint::kernels]` can only be used on a module: `mod NAME {}`",
            ));
        }
    };
    let Some((_, user_items)) = &module.content else {
        return Err(syn::Error::new(
            module.ident.span(),
            format!(
                "`#[cuda_lint::kernels]` needs an inline module: `mod {} {{}}`",
                module.ident
            ),
        ));
    };

    let (text, origin, source_expr) = if key == "file" {
        let rel = lit.value();
        let path = match manifest_dir {
            Some(dir) => dir.join(&rel),
            None => Path::new(&rel).to_path_buf(),
        };
        let text = std::fs::read_to_string(&path).map_err(|e| {
            syn::Error::new(
                lit.span(),
                format!("cannot read the kernel source `{rel}` (relative to the crate root): {e}"),
            )
        })?;
        let abs = LitStr::new(&path.to_string_lossy(), lit.span());
        // `include_str!` so that cargo rebuilds the crate when the file changes.
        (
            text,
            Origin {
                label: rel,
                span: lit.span(),
            },
            quote!(::core::include_str!(#abs)),
        )
    } else {
        (
            lit.value(),
            Origin {
                label: "<source>".into(),
                span: lit.span(),
            },
            quote!(#lit),
        )
    };

    let kernels = check(&text, &origin)?;
    let described = match key.to_string().as_str() {
        "file" => format!(" (`{}`)", origin.label),
        _ => String::new(),
    };
    Ok(generate(&module, user_items, &kernels, source_expr, &described, active))
}

/// Reads and checks the kernels of `text`.
fn check(text: &str, origin: &Origin) -> syn::Result<Vec<Kernel>> {
    let sigs = kernel_signatures(text).map_err(|e| origin.error(e.line, e.column, e.message))?;
    if sigs.is_empty() {
        return Err(syn::Error::new(
            origin.span,
            format!("{}: no `extern \"C\" __global__` kernel in this source", origin.label),
        ));
    }
    let mut kernels: Vec<Kernel> = Vec::with_capacity(sigs.len());
    for sig in sigs {
        let name = &sig.name;
        if !sig.extern_c {
            return Err(origin.error(
                sig.line,
                sig.column,
                format!(
                    "kernel `{name}` is not `extern \"C\"`; typed kernels need `extern \"C\"`: NVRTC mangles C++ names"
                ),
            ));
        }
        if let Some(p) = sig.params.iter().find(|p| p.default.is_some()) {
            return Err(origin.error(
                p.line,
                p.column,
                format!(
                    "parameter `{}` of kernel `{name}` has a default argument (`{}`): a typed launch \
                     passes every argument; remove the default",
                    p.name.as_deref().unwrap_or("_"),
                    p.default.as_deref().unwrap_or("")
                ),
            ));
        }
        if let Some(first) = kernels.iter().find(|k| k.sig.name == *name) {
            return Err(origin.error(
                sig.line,
                sig.column,
                format!("kernel `{name}` is defined twice (first on line {})", first.sig.line),
            ));
        }
        let method = match name.as_str() {
            "load" => {
                return Err(origin.error(
                    sig.line,
                    sig.column,
                    "a kernel named `load` would clash with `Kernels::load`; rename the kernel",
                ));
            }
            n if RESERVED[..4].contains(&n) || n == "_" => {
                return Err(origin.error(
                    sig.line,
                    sig.column,
                    format!("a kernel named `{n}` cannot be a Rust method; rename the kernel"),
                ));
            }
            n => rust_ident(n),
        };
        let params = sig
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| param(p, i, name, origin))
            .collect::<syn::Result<Vec<_>>>()?;
        let fenced = kernel_fence(text, name) == Fence::Fenced;
        kernels.push(Kernel {
            method,
            params,
            fenced,
            sig,
        });
    }
    Ok(kernels)
}

/// `name` as a Rust identifier (a raw one for a keyword: `in` is `r#in`).
fn rust_ident(name: &str) -> Ident {
    match syn::parse_str::<Ident>(name) {
        Ok(id) => id,
        Err(_) => Ident::new_raw(name, Span::call_site()),
    }
}

fn param(p: &KernelParam, index: usize, kernel: &str, origin: &Origin) -> syn::Result<Param> {
    let name = match p.name.as_deref() {
        None | Some("_") => format_ident!("arg{}", index),
        Some(n) if RESERVED.contains(&n) => format_ident!("{}_", n),
        Some(n) => rust_ident(n),
    };
    let which = match &p.name {
        Some(n) => format!("`{n}`"),
        None => format!("{}", index + 1),
    };
    let unsupported = || {
        origin.error(
            p.line,
            p.column,
            format!(
                "parameter {which} of kernel `{kernel}` has unsupported type `{}` ({SUPPORTED})",
                p.ty
            ),
        )
    };
    if p.reference || p.pointers > 1 {
        return Err(unsupported());
    }
    let ty = format_ident!("{}", rust_type(&p.base).ok_or_else(unsupported)?);
    let pass = match (p.pointers, p.is_const) {
        (0, _) => Pass::Value(ty),
        (_, true) => Pass::Read(ty),
        (_, false) => Pass::ReadWrite(ty),
    };
    Ok(Param { name, pass })
}

/// The kernel's signature as C, for docs: `scale(float* x, float a, unsigned n)`.
fn c_signature(sig: &KernelSig) -> String {
    let params: Vec<String> = sig
        .params
        .iter()
        .map(|p| match &p.name {
            Some(n) => format!("{} {n}", p.ty),
            None => p.ty.clone(),
        })
        .collect();
    format!("{}({})", sig.name, params.join(", "))
}

fn generate(
    module: &syn::ItemMod,
    user_items: &[Item],
    kernels: &[Kernel],
    source_expr: TokenStream,
    described: &str,
    active: bool,
) -> TokenStream {
    let syn::ItemMod {
        attrs,
        vis,
        unsafety,
        mod_token,
        ident,
        ..
    } = module;
    // syn keeps a module's inner attributes (`#![..]` inside the braces) with the outer ones.
    let (inner, outer): (Vec<_>, Vec<_>) = attrs.iter().partition(|a| matches!(a.style, syn::AttrStyle::Inner(_)));
    let rt = quote!(::cuda_lint_runtime);
    let fields = kernels.iter().map(|k| {
        let method = &k.method;
        let doc = format!("The kernel `{}`.", c_signature(&k.sig));
        quote! {
            #[doc = #doc]
            pub #method: #rt::Kernel,
        }
    });
    let lookups = kernels.iter().map(|k| {
        let method = &k.method;
        let name = LitStr::new(&k.sig.name, Span::call_site());
        quote!(#method: module.function(#name)?,)
    });
    let methods = kernels.iter().map(|k| launch_method(k, active));
    let source_doc = format!("The CUDA C++ source of these kernels{described}.");
    let kernels_doc = format!(
        "The kernels of [`SOURCE`]: {}. [`Kernels::load`] compiles and loads them; each has a \
         typed, `unsafe` launch method of its name.",
        kernels
            .iter()
            .map(|k| format!("`{}`", k.sig.name))
            .collect::<Vec<_>>()
            .join(", ")
    );
    quote! {
        #(#outer)*
        #vis #unsafety #mod_token #ident {
            #(#inner)*
            #(#user_items)*

            #[doc = #source_doc]
            pub const SOURCE: &str = #source_expr;

            #[doc = #kernels_doc]
            #[derive(Clone, Debug)]
            #[allow(non_snake_case, dead_code)]
            pub struct Kernels {
                #(#fields)*
            }

            #[allow(non_snake_case, dead_code, clippy::too_many_arguments)]
            impl Kernels {
                /// Compiles [`SOURCE`] with NVRTC for the context's device and loads it
                /// (`Context::load_cuda`), then looks up every kernel (`Module::function`).
                pub fn load(ctx: &#rt::Context) -> #rt::Result<Kernels> {
                    let module = ctx.load_cuda(SOURCE)?;
                    ::core::result::Result::Ok(Kernels {
                        #(#lookups)*
                    })
                }

                #(#methods)*
            }
        }
    }
}

fn launch_method(k: &Kernel, active: bool) -> TokenStream {
    let rt = quote!(::cuda_lint_runtime);
    let method = &k.method;
    let mut params = Vec::new();
    let mut args = Vec::new();
    let (mut reads, mut writes) = (Vec::new(), Vec::new());
    for (i, p) in k.params.iter().enumerate() {
        let name = &p.name;
        // Positions of the method's parameters: self 0, stream 1, cfg 2, then the kernel's.
        let at = u8::try_from(3 + i).unwrap_or(u8::MAX - 1);
        match &p.pass {
            Pass::Read(ty) => {
                params.push(quote!(#name: &impl #rt::DeviceArg<#ty>));
                args.push(quote!(#name));
                reads.push(at);
            }
            Pass::ReadWrite(ty) => {
                params.push(quote!(#name: &mut impl #rt::DeviceArg<#ty>));
                args.push(quote!(&*#name));
                reads.push(at);
                writes.push(at);
            }
            Pass::Value(ty) => {
                params.push(quote!(#name: #ty));
                args.push(quote!(&#name));
            }
        }
    }
    let summary = active.then(|| {
        let summary = Summary::Launch {
            stream: 1,
            reads,
            writes,
            kernel: Some(k.sig.name.clone()),
            fenced: Some(k.fenced),
        };
        match crate::effects::summary_tokens(&summary) {
            Ok(effect) => quote!(#[cuda_lint_summary::effect(#effect)]),
            Err(e) => e.to_compile_error(),
        }
    });
    let doc = format!(
        "Launches the kernel `{}` on `stream` with `cfg` (`Stream::launch`){}.",
        c_signature(&k.sig),
        if k.fenced {
            "; it executes `fence.proxy.alias`"
        } else {
            ""
        }
    );
    quote! {
        #[doc = #doc]
        ///
        /// # Safety
        ///
        /// That of `Stream::launch`: `cfg` must suit the kernel, every buffer must hold all
        /// the elements its threads touch, and the memory must stay alive, and not be used by
        /// the host in a way that races with the kernel, until the stream has finished it.
        #summary
        pub unsafe fn #method(
            &self,
            stream: &#rt::Stream,
            cfg: #rt::LaunchConfig,
            #(#params),*
        ) -> #rt::Result<()> {
            // SAFETY: the caller's contract above is `Stream::launch`'s; the arguments have the
            // kernel's parameter types, in its order.
            unsafe { stream.launch(&self.#method, cfg, &[#(#args),*]) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::assert_tokens;

    const SRC: &str = r#"
extern "C" __global__ void scale(float* x, const float* __restrict__ in, float a, unsigned n) {
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = a * in[i];
}
extern "C" __global__ void alias_copy(volatile int* a, const int* b, size_t n) {
    a[0] = 1;
    asm volatile("fence.proxy.alias;" ::: "memory");
    a[1] = b[0];
}
"#;

    fn expected(source: TokenStream, active: bool) -> TokenStream {
        let s1 = active.then(|| {
            quote!(#[cuda_lint_summary::effect(launch(stream = 1, reads = [3, 4], writes = [3], kernel = "scale", fenced = false))])
        });
        let s2 = active.then(|| {
            quote!(#[cuda_lint_summary::effect(launch(stream = 1, reads = [3, 4], writes = [3], kernel = "alias_copy", fenced = true))])
        });
        quote! {
            pub mod k {
                pub fn helper() {}
                pub const SOURCE: &str = #source;
                #[derive(Clone, Debug)]
                #[allow(non_snake_case, dead_code)]
                pub struct Kernels {
                    pub scale: ::cuda_lint_runtime::Kernel,
                    pub alias_copy: ::cuda_lint_runtime::Kernel,
                }
                #[allow(non_snake_case, dead_code, clippy::too_many_arguments)]
                impl Kernels {
                    pub fn load(ctx: &::cuda_lint_runtime::Context) -> ::cuda_lint_runtime::Result<Kernels> {
                        let module = ctx.load_cuda(SOURCE)?;
                        ::core::result::Result::Ok(Kernels {
                            scale: module.function("scale")?,
                            alias_copy: module.function("alias_copy")?,
                        })
                    }
                    #s1
                    pub unsafe fn scale(
                        &self,
                        stream: &::cuda_lint_runtime::Stream,
                        cfg: ::cuda_lint_runtime::LaunchConfig,
                        x: &mut impl ::cuda_lint_runtime::DeviceArg<f32>,
                        r#in: &impl ::cuda_lint_runtime::DeviceArg<f32>,
                        a: f32,
                        n: u32
                    ) -> ::cuda_lint_runtime::Result<()> {
                        unsafe { stream.launch(&self.scale, cfg, &[&*x, r#in, &a, &n]) }
                    }
                    #s2
                    pub unsafe fn alias_copy(
                        &self,
                        stream: &::cuda_lint_runtime::Stream,
                        cfg: ::cuda_lint_runtime::LaunchConfig,
                        a: &mut impl ::cuda_lint_runtime::DeviceArg<i32>,
                        b: &impl ::cuda_lint_runtime::DeviceArg<i32>,
                        n: usize
                    ) -> ::cuda_lint_runtime::Result<()> {
                        unsafe { stream.launch(&self.alias_copy, cfg, &[&*a, b, &n]) }
                    }
                }
            }
        }
    }

    fn module() -> TokenStream {
        quote!(
            pub mod k {
                pub fn helper() {}
            }
        )
    }

    #[test]
    fn inline_source_both_modes() {
        let lit = LitStr::new(SRC, Span::call_site());
        for active in [false, true] {
            let out = kernels(quote!(source = #lit), module(), None, active).unwrap();
            assert_tokens(&out, &expected(quote!(#lit), active));
            let text = out.to_string();
            assert_eq!(text.contains("cuda_lint_summary"), active);
            assert!(!text.contains("cuda_lint ::"), "no tool attribute of the lints: {text}");
        }
    }

    /// A directory of its own under the system's temporary directory, with `files`.
    fn crate_dir(test: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("cuda-lint-macros-{test}-{}", std::process::id()));
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    #[test]
    fn file_both_modes() {
        let dir = crate_dir("file", &[("kernels/k.cu", SRC)]);
        let abs = dir.join("kernels/k.cu").to_string_lossy().into_owned();
        for active in [false, true] {
            let out = kernels(quote!(file = "kernels/k.cu"), module(), Some(&dir), active).unwrap();
            assert_tokens(&out, &expected(quote!(::core::include_str!(#abs)), active));
            assert_eq!(out.to_string().contains("cuda_lint_summary"), active);
        }
        let out = kernels(quote!(file = "kernels/k.cu"), module(), Some(&dir), false).unwrap();
        assert!(
            out.to_string()
                .contains("The CUDA C++ source of these kernels (`kernels/k.cu`).")
        );
        assert!(out.to_string().contains("# Safety"));
        std::fs::remove_dir_all(dir).unwrap();
    }

    #[test]
    fn keeps_the_module_attributes_in_place() {
        let out = kernels(
            quote!(source = "extern \"C\" __global__ void k(int* p) {}"),
            quote!(
                #[doc = "outer"]
                pub(crate) mod m {
                    #![allow(unused)]
                    use std::fmt;
                }
            ),
            None,
            false,
        )
        .unwrap();
        let text = out.to_string();
        assert!(
            text.starts_with("# [doc = \"outer\"] pub (crate) mod m { # ! [allow (unused)] use std :: fmt ;"),
            "{text}"
        );
    }

    #[test]
    fn renames_and_raw_names() {
        let src = "extern \"C\" __global__ void type(int* stream, float cfg, const int*, long long _) {}";
        let lit = LitStr::new(src, Span::call_site());
        let out = kernels(
            quote!(source = #lit),
            quote!(
                mod m {}
            ),
            None,
            false,
        )
        .unwrap();
        let text = out.to_string();
        assert!(text.contains("pub unsafe fn r#type"), "{text}");
        assert!(
            text.contains(
                "stream_ : & mut impl :: cuda_lint_runtime :: DeviceArg < i32 > , cfg_ : f32 , \
                 arg2 : & impl :: cuda_lint_runtime :: DeviceArg < i32 > , arg3 : i64"
            ),
            "{text}"
        );
    }

    fn error(attr: TokenStream) -> String {
        kernels(
            attr,
            quote!(
                mod k {}
            ),
            None,
            false,
        )
        .unwrap_err()
        .to_string()
    }

    fn source_error(src: &str) -> String {
        let lit = LitStr::new(src, Span::call_site());
        error(quote!(source = #lit))
    }

    #[test]
    fn errors_in_the_source() {
        assert_eq!(
            source_error("\nextern \"C\" __global__ void scale(float4* v, int n) {}"),
            format!("<source>:2:34: parameter `v` of kernel `scale` has unsupported type `float4*` ({SUPPORTED})")
        );
        for (ty, shown) in [
            ("bool b", "bool"),
            ("float& r", "float&"),
            ("float** pp", "float**"),
            ("Pair<int> p", "Pair<int>"),
            ("long n", "long"),
            ("void* p", "void*"),
        ] {
            let e = source_error(&format!("extern \"C\" __global__ void k({ty}) {{}}"));
            assert!(e.contains(&format!("has unsupported type `{shown}`")), "{e}");
        }
        assert_eq!(
            source_error("__global__ void scale(float* x) {}"),
            "<source>:1:17: kernel `scale` is not `extern \"C\"`; typed kernels need `extern \"C\"`: \
             NVRTC mangles C++ names"
        );
        assert_eq!(
            source_error("extern \"C\" __global__ void k(float* x) {\n  x[0] = 1;\n"),
            "<source>:1:40: the body of kernel `k` is not closed"
        );
        assert_eq!(
            source_error("extern \"C\" __global__ void k(float* x, int n = 3) {}"),
            "<source>:1:40: parameter `n` of kernel `k` has a default argument (`3`): a typed launch \
             passes every argument; remove the default"
        );
        assert_eq!(
            source_error("__device__ float f(float x) { return x; }"),
            "<source>: no `extern \"C\" __global__` kernel in this source"
        );
        assert_eq!(
            source_error("extern \"C\" __global__ void k(int* p) {}\nextern \"C\" __global__ void k(int* p) {}"),
            "<source>:2:28: kernel `k` is defined twice (first on line 1)"
        );
        assert_eq!(
            source_error("extern \"C\" __global__ void load(int* p) {}"),
            "<source>:1:28: a kernel named `load` would clash with `Kernels::load`; rename the kernel"
        );
        assert_eq!(
            source_error("extern \"C\" __global__ void self(int* p) {}"),
            "<source>:1:28: a kernel named `self` cannot be a Rust method; rename the kernel"
        );
    }

    #[test]
    fn errors_in_the_attribute() {
        assert_eq!(
            error(quote!(file = "kernels/missing.cu")),
            "cannot read the kernel source `kernels/missing.cu` (relative to the crate root): No such \
             file or directory (os error 2)"
        );
        let dir = crate_dir("bad-file", &[("bad.cu", "extern \"C\" __global__ void k(float4 v) {}")]);
        let e = kernels(
            quote!(file = "bad.cu"),
            quote!(
                mod k {}
            ),
            Some(&dir),
            false,
        )
        .unwrap_err();
        assert!(
            e.to_string()
                .starts_with("bad.cu:1:30: parameter `v` of kernel `k` has unsupported type `float4`")
        );
        std::fs::remove_dir_all(dir).unwrap();
        assert!(error(quote!()).starts_with("expected `#[cuda_lint::kernels(file = \"PATH\")]`"));
        assert!(error(quote!(path = "k.cu")).starts_with("expected `#[cuda_lint::kernels(file"));
        assert_eq!(error(quote!(file = k)), "`file` must be a string literal");
        assert_eq!(
            error(quote!(source = "", file = "k.cu")),
            "give either `file = \"PATH\"` or `source = \"CUDA C++\"`, once"
        );
        let e = kernels(
            quote!(source = ""),
            quote!(
                fn f() {}
            ),
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`#[cuda_lint::kernels]` can only be used on a module: `mod NAME {}`"
        );
        let e = kernels(
            quote!(source = ""),
            quote!(
                mod k;
            ),
            None,
            false,
        )
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "`#[cuda_lint::kernels]` needs an inline module: `mod k {}`"
        );
    }
}
