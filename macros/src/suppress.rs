//! `#[cuda_lint::allow(LINT, .., reason = "...")]`.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::{Ident, Lit};

use crate::args::{ArgKind, Value, parse_args};

/// A lint or a group of them (`correctness`, `perf`, `pedantic`, `all`).
fn is_lint_or_group(name: &str) -> bool {
    cuda_lint_machine::lints::lints_named(name).is_some()
}

/// Active: `#[allow(cuda_lint::NAME, .., reason = "...")]` on the item. Inactive: the item as
/// written. The names are checked in both modes.
pub(crate) fn allow(attr: TokenStream, item: TokenStream, active: bool) -> syn::Result<TokenStream> {
    let mut lints: Vec<Ident> = Vec::new();
    let mut reason: Option<Lit> = None;
    for arg in parse_args(attr)? {
        match (arg.key.to_string().as_str(), arg.kind) {
            ("reason", ArgKind::Value(value)) => {
                if reason.is_some() {
                    return Err(syn::Error::new(arg.key.span(), "`reason` is given twice"));
                }
                match value {
                    Value::Lit(lit @ Lit::Str(_)) => reason = Some(lit),
                    other => {
                        return Err(syn::Error::new(other.span(), "`reason` must be a string literal"));
                    }
                }
            }
            (name, ArgKind::Flag) if is_lint_or_group(name) => {
                lints.push(format_ident!("{}", name, span = arg.key.span()));
            }
            (name, ArgKind::Flag) => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    format!(
                        "unknown cuda-lint lint or group `{name}`; the lints and groups are: {}",
                        cuda_lint_machine::lints::lint_and_group_names()
                    ),
                ));
            }
            (_, _) => {
                return Err(syn::Error::new(
                    arg.key.span(),
                    "expected lint names and an optional `reason = \"...\"`: \
                     `#[cuda_lint::allow(missing_sync, reason = \"...\")]`",
                ));
            }
        }
    }
    if lints.is_empty() {
        return Err(syn::Error::new(
            Span::call_site(),
            format!(
                "`#[cuda_lint::allow]` needs at least one lint or group: {}",
                cuda_lint_machine::lints::lint_and_group_names()
            ),
        ));
    }
    if !active {
        return Ok(item);
    }
    let reason = reason.map(|r| quote!(, reason = #r));
    Ok(quote! {
        #[allow(#(cuda_lint::#lints),* #reason)]
        #item
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::assert_tokens;

    #[test]
    fn active_allows_the_tool_lints() {
        let item = quote!(
            fn f() {}
        );
        let out = allow(quote!(missing_sync, reason = "the copy is done"), item.clone(), true).unwrap();
        assert_tokens(
            &out,
            &quote! {
                #[allow(cuda_lint::missing_sync, reason = "the copy is done")]
                fn f() {}
            },
        );
        let out = allow(quote!(pageable_async_copy, all), item.clone(), true).unwrap();
        assert_tokens(
            &out,
            &quote! {
                #[allow(cuda_lint::pageable_async_copy, cuda_lint::all)]
                fn f() {}
            },
        );
        // Any item: an impl, a module, a struct, with other attributes.
        let item = quote!(
            #[derive(Debug)]
            pub struct S;
        );
        let out = allow(quote!(host_deref_device_ptr), item, true).unwrap();
        assert_tokens(
            &out,
            &quote! {
                #[allow(cuda_lint::host_deref_device_ptr)]
                #[derive(Debug)]
                pub struct S;
            },
        );
    }

    #[test]
    fn inactive_leaves_the_item_alone() {
        let item = quote!(
            impl S {
                fn f(&self) {}
            }
        );
        let groups = cuda_lint_machine::Group::ALL.iter().map(|g| g.name());
        for lint in cuda_lint_machine::LINTS
            .iter()
            .map(|l| l.name)
            .chain(groups)
            .chain(["all"])
        {
            let name = format_ident!("{}", lint);
            let out = allow(quote!(#name, reason = "r"), item.clone(), false).unwrap();
            assert_tokens(&out, &item);
            assert!(!out.to_string().contains("cuda_lint"));
        }
    }

    #[test]
    fn errors() {
        let err = |attr: TokenStream| {
            allow(
                attr,
                quote!(
                    fn f() {}
                ),
                false,
            )
            .unwrap_err()
            .to_string()
        };
        let lints = cuda_lint_machine::lints::lint_and_group_names();
        assert_eq!(
            err(quote!(missing_synch)),
            format!("unknown cuda-lint lint or group `missing_synch`; the lints and groups are: {lints}")
        );
        assert_eq!(
            err(quote!(missing_sync, reason = because)),
            "`reason` must be a string literal"
        );
        assert_eq!(
            err(quote!(missing_sync, reason = 3)),
            "`reason` must be a string literal"
        );
        assert_eq!(
            err(quote!(reason = "r")),
            format!("`#[cuda_lint::allow]` needs at least one lint or group: {lints}")
        );
        assert!(err(quote!(missing_sync = 1)).starts_with("expected lint names"));
        assert_eq!(
            err(quote!(missing_sync, reason = "a", reason = "b")),
            "`reason` is given twice"
        );
    }
}
