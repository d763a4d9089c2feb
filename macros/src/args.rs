//! What the attributes share: their argument lists (`key`, `key = value`, `key(a, b)`) and the
//! parameters of the function they are on.

use proc_macro2::{Span, TokenStream};
use syn::ext::IdentExt;
use syn::parse::{ParseStream, Parser};
use syn::{Attribute, FnArg, Ident, Lit, Pat, ReturnType, Signature, Token, Visibility};

/// One argument of an attribute.
pub(crate) struct Arg {
    pub key: Ident,
    pub kind: ArgKind,
}

pub(crate) enum ArgKind {
    /// `key`
    Flag,
    /// `key = value`
    Value(Value),
    /// `key(a, b)`
    List(Vec<Ident>),
}

/// The value of `key = value`.
pub(crate) enum Value {
    Ident(Ident),
    Lit(Lit),
    /// Anything else (where it starts).
    Other(Span),
}

impl Value {
    pub fn span(&self) -> Span {
        match self {
            Value::Ident(i) => i.span(),
            Value::Lit(l) => l.span(),
            Value::Other(s) => *s,
        }
    }
}

/// Parses `a, b = c, d(e, f), g = "lit"` (a trailing comma allowed). Keys and names may be
/// keywords (`self`).
pub(crate) fn parse_args(attr: TokenStream) -> syn::Result<Vec<Arg>> {
    let parser = |input: ParseStream| {
        let mut args = Vec::new();
        while !input.is_empty() {
            let key = input
                .call(Ident::parse_any)
                .map_err(|e| syn::Error::new(e.span(), "expected a name"))?;
            let kind = if input.peek(Token![=]) {
                input.parse::<Token![=]>()?;
                let single = input.peek2(Token![,]) || peek_end(input);
                if input.peek(Lit) && single {
                    ArgKind::Value(Value::Lit(input.parse()?))
                } else if input.peek(Ident::peek_any) && single {
                    ArgKind::Value(Value::Ident(input.call(Ident::parse_any)?))
                } else {
                    let span = input.span();
                    // Skip the value, up to the next comma.
                    while !input.is_empty() && !input.peek(Token![,]) {
                        input.parse::<proc_macro2::TokenTree>()?;
                    }
                    ArgKind::Value(Value::Other(span))
                }
            } else if input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in input);
                let mut names = Vec::new();
                while !content.is_empty() {
                    names.push(
                        content
                            .call(Ident::parse_any)
                            .map_err(|e| syn::Error::new(e.span(), "expected a parameter name"))?,
                    );
                    if !content.is_empty() {
                        content.parse::<Token![,]>()?;
                    }
                }
                ArgKind::List(names)
            } else {
                ArgKind::Flag
            };
            args.push(Arg { key, kind });
            if !input.is_empty() {
                input.parse::<Token![,]>()?;
            }
        }
        Ok(args)
    };
    parser.parse2(attr)
}

/// Whether `input` holds just one more token tree.
fn peek_end(input: ParseStream) -> bool {
    let fork = input.fork();
    fork.parse::<proc_macro2::TokenTree>().is_ok() && fork.is_empty()
}

/// The function an effect attribute is on: its name and its parameters by position (`self`
/// first for a method; `None` for a pattern that is not a plain name).
pub(crate) struct FnParams {
    pub name: Ident,
    pub params: Vec<Option<String>>,
    /// Whether it returns something (`-> T`).
    pub returns_value: bool,
}

impl FnParams {
    /// Reads the function `item`; an error (at the attribute) when it is not a function or
    /// method. `attr` is the attribute's name, for the message.
    pub fn parse(item: &TokenStream, attr: &str) -> syn::Result<FnParams> {
        let parser = |input: ParseStream| {
            input.call(Attribute::parse_outer)?;
            input.parse::<Visibility>()?;
            input.parse::<Option<Token![default]>>()?;
            let sig: Signature = input.parse()?;
            input.parse::<TokenStream>()?;
            Ok(sig)
        };
        let sig = parser.parse2(item.clone()).map_err(|_| {
            syn::Error::new(
                Span::call_site(),
                format!("`#[cuda_lint::{attr}]` can only be used on a function or method"),
            )
        })?;
        let params = sig
            .inputs
            .iter()
            .map(|arg| match arg {
                FnArg::Receiver(_) => Some("self".to_string()),
                FnArg::Typed(t) => match &*t.pat {
                    Pat::Ident(p) => Some(p.ident.unraw().to_string()),
                    _ => None,
                },
            })
            .collect();
        Ok(FnParams {
            name: sig.ident,
            params,
            returns_value: matches!(sig.output, ReturnType::Type(..)),
        })
    }

    /// The position of parameter `name`, or an error at `name` listing the parameters.
    pub fn position(&self, name: &Ident) -> syn::Result<usize> {
        let wanted = name.unraw().to_string();
        if let Some(i) = self.params.iter().position(|p| p.as_deref() == Some(wanted.as_str())) {
            return Ok(i);
        }
        let names: Vec<&str> = self.params.iter().flatten().map(String::as_str).collect();
        let message = if names.is_empty() {
            format!("`{wanted}` is not a parameter of `{}`, which has none", self.name)
        } else {
            format!(
                "`{wanted}` is not a parameter of `{}`; its parameters are: {}",
                self.name,
                names.join(", ")
            )
        };
        Err(syn::Error::new(name.span(), message))
    }
}

/// Test helper: `actual` and `expected` are the same tokens, doc attributes left out (`///` in
/// `quote!` is a raw string, the generated docs are not).
#[cfg(test)]
pub(crate) fn assert_tokens(actual: &TokenStream, expected: &TokenStream) {
    fn strip_docs(tokens: &TokenStream) -> TokenStream {
        use proc_macro2::{Group, TokenTree};
        let mut out = Vec::new();
        let trees: Vec<TokenTree> = tokens.clone().into_iter().collect();
        let mut i = 0;
        while i < trees.len() {
            if let (TokenTree::Punct(p), Some(TokenTree::Group(g))) = (&trees[i], trees.get(i + 1))
                && p.as_char() == '#'
                && g.delimiter() == proc_macro2::Delimiter::Bracket
                && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "doc")
            {
                i += 2;
                continue;
            }
            out.push(match &trees[i] {
                TokenTree::Group(g) => TokenTree::Group(Group::new(g.delimiter(), strip_docs(&g.stream()))),
                t => t.clone(),
            });
            i += 1;
        }
        out.into_iter().collect()
    }
    assert_eq!(strip_docs(actual).to_string(), strip_docs(expected).to_string());
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    #[test]
    fn parses_argument_forms() {
        let args = parse_args(quote!(htod, dst = self, reads(a, self), reason = "x", n = 1 + 2,)).unwrap();
        let keys: Vec<String> = args.iter().map(|a| a.key.to_string()).collect();
        assert_eq!(keys, ["htod", "dst", "reads", "reason", "n"]);
        assert!(matches!(args[0].kind, ArgKind::Flag));
        assert!(matches!(&args[1].kind, ArgKind::Value(Value::Ident(i)) if i == "self"));
        assert!(matches!(&args[2].kind, ArgKind::List(l) if l.len() == 2));
        assert!(matches!(&args[3].kind, ArgKind::Value(Value::Lit(_))));
        assert!(matches!(&args[4].kind, ArgKind::Value(Value::Other(_))));
        assert!(parse_args(quote!(a b)).is_err());
        assert!(parse_args(quote!(reads(1))).is_err());
    }

    #[test]
    fn finds_parameters() {
        let f = FnParams::parse(
            &quote!(
                pub fn upload(&self, s: &S, mut dst: D, (a, b): (u8, u8)) {}
            ),
            "x",
        )
        .unwrap();
        assert_eq!(
            f.params,
            [Some("self".into()), Some("s".into()), Some("dst".into()), None]
        );
        assert_eq!(f.position(&Ident::new("dst", Span::call_site())).unwrap(), 2);
        let e = f.position(&Ident::new("strm", Span::call_site())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "`strm` is not a parameter of `upload`; its parameters are: self, s, dst"
        );
        let f = FnParams::parse(
            &quote!(
                fn none() -> u8 {
                    0
                }
            ),
            "x",
        )
        .unwrap();
        assert!(f.returns_value);
        let e = f.position(&Ident::new("s", Span::call_site())).unwrap_err();
        assert_eq!(e.to_string(), "`s` is not a parameter of `none`, which has none");
        // Trait methods without a body, `unsafe`/`async`/`extern` functions.
        assert!(
            FnParams::parse(
                &quote!(
                    unsafe fn f(&self);
                ),
                "x"
            )
            .is_ok()
        );
        assert!(
            FnParams::parse(
                &quote!(
                    #[inline]
                    pub(crate) async unsafe fn f() {}
                ),
                "x"
            )
            .is_ok()
        );
        let e = FnParams::parse(
            &quote!(
                struct S;
            ),
            "returns",
        )
        .err()
        .unwrap();
        assert_eq!(
            e.to_string(),
            "`#[cuda_lint::returns]` can only be used on a function or method"
        );
    }
}
