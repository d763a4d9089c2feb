//! The effects of the user's own wrappers: `synchronizes`, `copies_async`, `launches`,
//! `returns`. Active, each puts `#[cuda_lint_summary::effect(..)]` on the function, naming
//! parameters by position (`self` is 0 in a method); inactive, the function is left as written.
//! Parameter names are checked in both modes.

use cuda_lint_protocol::summary::{CopyDir, RETURNS, Summary};
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Ident;

use crate::args::{Arg, ArgKind, FnParams, Value, parse_args};

/// The effect as the lint reads it (the summary grammar's text, `cuda_lint_protocol::summary`),
/// with the function after it (or the function alone).
fn emit(summary: Summary, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    if !active {
        return Ok(item);
    }
    let effect = summary_tokens(&summary)?;
    Ok(quote! {
        #[cuda_lint_summary::effect(#effect)]
        #item
    })
}

/// A summary as tokens (its text, which `cuda_lint_protocol::summary::parse` reads back).
pub(crate) fn summary_tokens(summary: &Summary) -> syn::Result<TokenStream> {
    summary
        .to_string()
        .parse()
        .map_err(|e| syn::Error::new(Span::call_site(), format!("cuda-lint could not write its summary: {e}")))
}

/// A parameter position as the grammar writes it.
pub(crate) fn pos(i: usize) -> syn::Result<u8> {
    u8::try_from(i)
        .ok()
        .filter(|&p| p != u8::MAX)
        .ok_or_else(|| syn::Error::new(Span::call_site(), "cuda-lint summaries name at most 254 parameters"))
}

/// `synchronizes(stream)` -> `sync(stream = N)`; `synchronizes(all)` -> `sync(all)`.
pub(crate) fn synchronizes(attr: TokenStream, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    let f = FnParams::parse(&item, "synchronizes")?;
    let form = "expected `#[cuda_lint::synchronizes(STREAM)]`, STREAM the name of a parameter, \
                or `#[cuda_lint::synchronizes(all)]`";
    let args = parse_args(attr)?;
    let effect = match args.as_slice() {
        [
            Arg {
                key,
                kind: ArgKind::Flag,
            },
        ] if key == "all" => Summary::SyncAll,
        [
            Arg {
                key,
                kind: ArgKind::Flag,
            },
        ] => Summary::SyncStream(pos(f.position(key)?)?),
        [] => return Err(syn::Error::new(Span::call_site(), form)),
        [first, ..] => return Err(syn::Error::new(first.key.span(), form)),
    };
    emit(effect, item, active)
}

/// The parameter a `key = NAME` names.
fn param_value(f: &FnParams, key: &Ident, value: &Value) -> syn::Result<usize> {
    match value {
        Value::Ident(name) => f.position(name),
        other => Err(syn::Error::new(
            other.span(),
            format!("expected `{key} = PARAMETER`, the name of a parameter of `{}`", f.name),
        )),
    }
}

/// `copies_async([htod|dtoh|dtod,] dst = A, src = B, stream = S)` ->
/// `copy(dst = N, src = N, stream = N, dir = infer|htod|dtoh|dtod)`.
pub(crate) fn copies_async(attr: TokenStream, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    let f = FnParams::parse(&item, "copies_async")?;
    let forms = "expected `dst = PARAMETER`, `src = PARAMETER` and `stream = PARAMETER`, after an \
                 optional direction `htod`, `dtoh` or `dtod`";
    let mut dir: Option<Ident> = None;
    let mut slots: [(&str, Option<usize>); 3] = [("dst", None), ("src", None), ("stream", None)];
    for (i, arg) in parse_args(attr)?.into_iter().enumerate() {
        let key = arg.key.to_string();
        match arg.kind {
            ArgKind::Flag if matches!(key.as_str(), "htod" | "dtoh" | "dtod") => {
                if i != 0 {
                    return Err(syn::Error::new(
                        arg.key.span(),
                        "the direction goes first: `#[cuda_lint::copies_async(htod, dst = .., src = .., stream = ..)]`",
                    ));
                }
                dir = Some(arg.key);
            }
            ArgKind::Flag if slots.iter().any(|(k, _)| *k == key) => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    format!("expected `{key} = PARAMETER`, the name of a parameter of `{}`", f.name),
                ));
            }
            ArgKind::Flag if i == 0 => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    format!("unknown copy direction `{key}`; expected `htod`, `dtoh` or `dtod`"),
                ));
            }
            ArgKind::Value(value) if slots.iter().any(|(k, _)| *k == key) => {
                let i = slots.iter().position(|(k, _)| *k == key).unwrap_or_default();
                if slots[i].1.is_some() {
                    return Err(syn::Error::new(arg.key.span(), format!("`{key}` is given twice")));
                }
                slots[i].1 = Some(param_value(&f, &arg.key, &value)?);
            }
            _ => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    format!("unexpected `{key}` in `#[cuda_lint::copies_async]`: {forms}"),
                ));
            }
        }
    }
    let mut n = [0usize; 3];
    for (i, (key, slot)) in slots.iter().enumerate() {
        n[i] = slot.ok_or_else(|| {
            syn::Error::new(
                Span::call_site(),
                format!("`#[cuda_lint::copies_async]` needs `{key} = PARAMETER`: {forms}"),
            )
        })?;
    }
    let dir = dir.map_or(Some(CopyDir::Infer), |d| CopyDir::from_keyword(&d.to_string()));
    let summary = Summary::Copy {
        dst: pos(n[0])?,
        src: pos(n[1])?,
        stream: pos(n[2])?,
        dir: dir.unwrap_or(CopyDir::Infer),
    };
    emit(summary, item, active)
}

/// `launches(stream = S, reads(A, ..), writes(B, ..))` ->
/// `launch(stream = N, reads = [N, ..], writes = [N, ..])`.
pub(crate) fn launches(attr: TokenStream, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    let f = FnParams::parse(&item, "launches")?;
    let forms = "expected `stream = PARAMETER`, `reads(PARAMETER, ..)` and `writes(PARAMETER, ..)`";
    let mut stream = None;
    let mut reads: Option<Vec<usize>> = None;
    let mut writes: Option<Vec<usize>> = None;
    for arg in parse_args(attr)? {
        let key = arg.key.to_string();
        match (key.as_str(), arg.kind) {
            ("stream", ArgKind::Value(value)) => {
                if stream.is_some() {
                    return Err(syn::Error::new(arg.key.span(), "`stream` is given twice"));
                }
                stream = Some(param_value(&f, &arg.key, &value)?);
            }
            ("reads" | "writes", ArgKind::List(names)) => {
                let list = if key == "reads" { &mut reads } else { &mut writes };
                if list.is_some() {
                    return Err(syn::Error::new(arg.key.span(), format!("`{key}` is given twice")));
                }
                *list = Some(names.iter().map(|n| f.position(n)).collect::<syn::Result<_>>()?);
            }
            _ => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    format!("unexpected `{key}` in `#[cuda_lint::launches]`: {forms}"),
                ));
            }
        }
    }
    let stream = stream.ok_or_else(|| {
        syn::Error::new(
            Span::call_site(),
            format!("`#[cuda_lint::launches]` needs `stream = PARAMETER`: {forms}"),
        )
    })?;
    let positions =
        |list: Option<Vec<usize>>| -> syn::Result<Vec<u8>> { list.unwrap_or_default().into_iter().map(pos).collect() };
    let summary = Summary::Launch {
        stream: pos(stream)?,
        reads: positions(reads)?,
        writes: positions(writes)?,
        kernel: None,
        fenced: None,
    };
    emit(summary, item, active)
}

/// `returns(pinned|device|managed|pageable)` -> `returns(KIND)`.
pub(crate) fn returns(attr: TokenStream, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    let f = FnParams::parse(&item, "returns")?;
    let form = "expected `#[cuda_lint::returns(KIND)]`, KIND one of `pinned`, `device`, `managed` or `pageable`";
    let args = parse_args(attr)?;
    let kind = match args.as_slice() {
        [
            Arg {
                key,
                kind: ArgKind::Flag,
            },
        ] if RETURNS.iter().any(|(word, _)| key == word) => key.clone(),
        [
            Arg {
                key,
                kind: ArgKind::Flag,
            },
        ] => {
            return Err(syn::Error::new(
                key.span(),
                format!("unknown memory kind `{key}`; expected `pinned`, `device`, `managed` or `pageable`"),
            ));
        }
        [] => return Err(syn::Error::new(Span::call_site(), form)),
        [first, ..] => return Err(syn::Error::new(first.key.span(), form)),
    };
    if !f.returns_value {
        return Err(syn::Error::new(
            f.name.span(),
            format!(
                "`#[cuda_lint::returns({kind})]` is on `{}`, which returns nothing",
                f.name
            ),
        ));
    }
    let kind = RETURNS
        .iter()
        .find(|(word, _)| kind == word)
        .map(|(_, k)| *k)
        .expect("checked above");
    emit(Summary::Returns(kind), item, active)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::assert_tokens;

    fn upload() -> TokenStream {
        quote! {
            pub unsafe fn upload(s: &Stream, dst: &mut DeviceBuffer<f32>, src: &[f32]) -> Result<()> {
                unsafe { s.copy_htod_async(dst, src) }
            }
        }
    }

    fn method() -> TokenStream {
        quote! {
            fn wait(&self, other: &Stream) -> Result<()> {
                self.0.synchronize()
            }
        }
    }

    #[test]
    fn synchronizes_both_modes() {
        let out = synchronizes(quote!(self), method(), true).unwrap();
        let m = method();
        assert_tokens(&out, &quote!(#[cuda_lint_summary::effect(sync(stream = 0))] #m));
        let out = synchronizes(quote!(other), method(), true).unwrap();
        assert_tokens(&out, &quote!(#[cuda_lint_summary::effect(sync(stream = 1))] #m));
        let out = synchronizes(quote!(all), method(), true).unwrap();
        assert_tokens(&out, &quote!(#[cuda_lint_summary::effect(sync(all))] #m));
        for attr in [quote!(self), quote!(all)] {
            assert_tokens(&synchronizes(attr, method(), false).unwrap(), &m);
        }
    }

    #[test]
    fn copies_async_both_modes() {
        let u = upload();
        let out = copies_async(quote!(dst = dst, src = src, stream = s), upload(), true).unwrap();
        assert_tokens(
            &out,
            &quote!(#[cuda_lint_summary::effect(copy(dst = 1, src = 2, stream = 0, dir = infer))] #u),
        );
        for dir in ["htod", "dtoh", "dtod"] {
            let d = Ident::new(dir, Span::call_site());
            let out = copies_async(quote!(#d, stream = s, src = src, dst = dst,), upload(), true).unwrap();
            assert_tokens(
                &out,
                &quote!(#[cuda_lint_summary::effect(copy(dst = 1, src = 2, stream = 0, dir = #d))] #u),
            );
            let out = copies_async(quote!(#d, stream = s, src = src, dst = dst), upload(), false).unwrap();
            assert_tokens(&out, &u);
        }
        // `self` as a parameter.
        let m = method();
        let out = copies_async(quote!(dst = self, src = other, stream = other), method(), true).unwrap();
        assert_tokens(
            &out,
            &quote!(#[cuda_lint_summary::effect(copy(dst = 0, src = 1, stream = 1, dir = infer))] #m),
        );
    }

    #[test]
    fn launches_both_modes() {
        let u = upload();
        let out = launches(quote!(stream = s, reads(src, dst), writes(dst)), upload(), true).unwrap();
        assert_tokens(
            &out,
            &quote!(#[cuda_lint_summary::effect(launch(stream = 0, reads = [2, 1], writes = [1]))] #u),
        );
        let out = launches(quote!(writes(), stream = s), upload(), true).unwrap();
        assert_tokens(
            &out,
            &quote!(#[cuda_lint_summary::effect(launch(stream = 0, reads = [], writes = []))] #u),
        );
        let out = launches(quote!(stream = s, reads(src), writes(dst)), upload(), false).unwrap();
        assert_tokens(&out, &u);
    }

    #[test]
    fn returns_both_modes() {
        let f = quote!(
            fn make(ctx: &Context) -> Result<PinnedBuffer<u8>> {
                ctx.alloc_pinned(4)
            }
        );
        for kind in ["pinned", "device", "managed", "pageable"] {
            let k = Ident::new(kind, Span::call_site());
            let out = returns(quote!(#k), f.clone(), true).unwrap();
            assert_tokens(&out, &quote!(#[cuda_lint_summary::effect(returns(#k))] #f));
            let out = returns(quote!(#k), f.clone(), false).unwrap();
            assert_tokens(&out, &f);
            assert!(!out.to_string().contains("cuda_lint"));
        }
    }

    #[test]
    fn errors() {
        let e = |r: syn::Result<TokenStream>| r.unwrap_err().to_string();
        assert_eq!(
            e(synchronizes(quote!(strm), upload(), true)),
            "`strm` is not a parameter of `upload`; its parameters are: s, dst, src"
        );
        assert!(e(synchronizes(quote!(), upload(), true)).starts_with("expected `#[cuda_lint::synchronizes(STREAM)]`"));
        assert!(e(synchronizes(quote!(s, all), upload(), true)).starts_with("expected `#[cuda_lint::synchronizes"));
        assert!(e(synchronizes(quote!(stream = s), upload(), true)).starts_with("expected `#[cuda_lint::synchronizes"));
        assert_eq!(
            e(synchronizes(
                quote!(s),
                quote!(
                    struct S;
                ),
                true
            )),
            "`#[cuda_lint::synchronizes]` can only be used on a function or method"
        );
        assert_eq!(
            e(copies_async(quote!(dst = out, src = src, stream = s), upload(), true)),
            "`out` is not a parameter of `upload`; its parameters are: s, dst, src"
        );
        assert_eq!(
            e(copies_async(
                quote!(htoh, dst = dst, src = src, stream = s),
                upload(),
                true
            )),
            "unknown copy direction `htoh`; expected `htod`, `dtoh` or `dtod`"
        );
        assert!(
            e(copies_async(
                quote!(dst = dst, htod, src = src, stream = s),
                upload(),
                true
            ))
            .starts_with("the direction goes first")
        );
        assert_eq!(
            e(copies_async(quote!(dst = dst, src = src), upload(), true)),
            "`#[cuda_lint::copies_async]` needs `stream = PARAMETER`: expected `dst = PARAMETER`, \
             `src = PARAMETER` and `stream = PARAMETER`, after an optional direction `htod`, `dtoh` or `dtod`"
        );
        assert!(
            e(copies_async(quote!(to = dst, src = src, stream = s), upload(), true)).starts_with("unexpected `to`")
        );
        assert_eq!(
            e(copies_async(quote!(dst, src = src, stream = s), upload(), true)),
            "expected `dst = PARAMETER`, the name of a parameter of `upload`"
        );
        assert_eq!(
            e(copies_async(quote!(dst = dst, dst = src, stream = s), upload(), true)),
            "`dst` is given twice"
        );
        assert_eq!(
            e(copies_async(quote!(dst = "dst", src = src, stream = s), upload(), true)),
            "expected `dst = PARAMETER`, the name of a parameter of `upload`"
        );
        assert_eq!(
            e(launches(quote!(stream = s, reads(source)), upload(), true)),
            "`source` is not a parameter of `upload`; its parameters are: s, dst, src"
        );
        assert!(e(launches(quote!(reads(src)), upload(), true)).starts_with("`#[cuda_lint::launches]` needs `stream"));
        assert!(e(launches(quote!(stream = s, read(src)), upload(), true)).starts_with("unexpected `read`"));
        assert_eq!(
            e(returns(quote!(host), upload(), true)),
            "unknown memory kind `host`; expected `pinned`, `device`, `managed` or `pageable`"
        );
        assert_eq!(
            e(returns(
                quote!(pinned),
                quote!(
                    fn f(x: u8) {}
                ),
                true
            )),
            "`#[cuda_lint::returns(pinned)]` is on `f`, which returns nothing"
        );
    }
}
