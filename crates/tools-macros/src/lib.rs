//! `#[toolbox]`: put it on a struct (its doc comment's first line becomes
//! the toolbox summary) and on that struct's `impl` block (every `pub`
//! method becomes a tool). The macro only registers: it generates an
//! argument struct per method (for serde and schemars) and a `match` that
//! calls the method; schema rendering, validation and dispatch live in
//! ordinary code in `baton-tools`.
//!
//! Conventions read from each method:
//! - the doc comment is the tool's description; lines of the form
//!   `- name: text` describe parameters and are taken out of it;
//! - `Option<T>` parameters are optional; `#[default(expr)]` on a
//!   parameter makes it optional with that default;
//! - methods may be `async`; they return `Result<T, E>` with
//!   `T: Serialize` and `E: Display` (the error becomes the message the
//!   model sees);
//! - a private `async fn close(&self)` in the same block is called when
//!   the agent that owns the toolbox finishes;
//! - a private `async fn card_needed(&self, call: PendingCall<'_>) -> bool`
//!   in the same block tells which calls of asking methods may run
//!   without the user's card (`Toolbox::card_needed`), and a private
//!   `async fn describe(&self, call: PendingCall<'_>) -> Option<String>`
//!   what a call will really do, for the card (`Toolbox::describe`);
//! - `#[effect(write)]` (writes inside the workspace), `#[effect(change)]`
//!   (changes state elsewhere: a site's form or setting, the mailbox) or
//!   `#[effect(external)]` (sends something off the machine) on a method
//!   declares its effect; methods read by default;
//! - a parameter of type `&ToolContext` is not an argument: it receives
//!   the call's context (its cancellation token);
//! - synchronous methods are run on a blocking thread by the dispatcher.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::ext::IdentExt;
use syn::{
    Attribute, Expr, FnArg, ImplItem, Item, ItemImpl, ItemStruct, Lit, Meta, Pat, ReturnType, Type,
    Visibility, parse_macro_input,
};

/// Marks a toolbox struct (summary from its doc) or its `impl` block
/// (tools from its `pub` methods).
#[proc_macro_attribute]
pub fn toolbox(_attr: TokenStream, item: TokenStream) -> TokenStream {
    match parse_macro_input!(item as Item) {
        Item::Struct(s) => expand_struct(s).into(),
        Item::Impl(i) => match expand_impl(i) {
            Ok(t) => t.into(),
            Err(e) => e.to_compile_error().into(),
        },
        other => syn::Error::new_spanned(other, "#[toolbox] goes on a struct or its impl block")
            .to_compile_error()
            .into(),
    }
}

fn doc_lines(attrs: &[Attribute]) -> Vec<String> {
    attrs
        .iter()
        .filter(|a| a.path().is_ident("doc"))
        .filter_map(|a| match &a.meta {
            Meta::NameValue(nv) => match &nv.value {
                Expr::Lit(l) => match &l.lit {
                    Lit::Str(s) => Some(s.value()),
                    _ => None,
                },
                _ => None,
            },
            _ => None,
        })
        .map(|l| l.strip_prefix(' ').unwrap_or(&l).to_string())
        .collect()
}

fn expand_struct(s: ItemStruct) -> proc_macro2::TokenStream {
    let name = &s.ident;
    let summary = doc_lines(&s.attrs)
        .into_iter()
        .find(|l| !l.trim().is_empty())
        .unwrap_or_default();
    let (ig, tg, wc) = s.generics.split_for_impl();
    let name_str = name.to_string();
    quote! {
        #s
        impl #ig ::baton_tools::ToolboxDoc for #name #tg #wc {
            const NAME: &'static str = #name_str;
            const SUMMARY: &'static str = #summary;
        }
    }
}

struct Param {
    ident: syn::Ident,
    ty: Type,
    default: Option<Expr>,
}

/// Whether `ty` is `&ToolContext` (any path ending in `ToolContext`).
fn is_context(ty: &Type) -> bool {
    match ty {
        Type::Reference(r) => match &*r.elem {
            Type::Path(p) => p
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "ToolContext"),
            _ => false,
        },
        _ => false,
    }
}

/// Takes `#[effect(read|write|external)]` off a method; the variant.
fn take_effect(attrs: &mut Vec<Attribute>) -> syn::Result<proc_macro2::TokenStream> {
    let mut effect = quote! { Read };
    let mut kept = Vec::new();
    for a in attrs.drain(..) {
        if !a.path().is_ident("effect") {
            kept.push(a);
            continue;
        }
        let word: syn::Ident = a.parse_args()?;
        effect = match word.to_string().as_str() {
            "read" => quote! { Read },
            "write" => quote! { Write },
            "change" => quote! { Change },
            "external" => quote! { External },
            _ => {
                return Err(syn::Error::new_spanned(
                    word,
                    "effect is one of read, write, change, external",
                ));
            }
        };
    }
    *attrs = kept;
    Ok(effect)
}

fn expand_impl(mut imp: ItemImpl) -> syn::Result<proc_macro2::TokenStream> {
    let self_ty = imp.self_ty.clone();
    let mut methods = Vec::new();
    let mut has_close = false;
    let mut has_card_needed = false;
    let mut has_describe = false;
    for item in &mut imp.items {
        let ImplItem::Fn(f) = item else { continue };
        if !matches!(f.vis, Visibility::Public(_)) {
            if f.sig.ident == "close" && f.sig.asyncness.is_some() {
                has_close = true;
            }
            if f.sig.ident == "card_needed" && f.sig.asyncness.is_some() {
                has_card_needed = true;
            }
            if f.sig.ident == "describe" && f.sig.asyncness.is_some() {
                has_describe = true;
            }
            continue;
        }
        methods.push(expand_method(f)?);
    }
    let arg_structs = methods.iter().map(|m| &m.arg_struct);
    let specs = methods.iter().map(|m| &m.spec);
    let arms = methods.iter().map(|m| &m.arm);
    let close = if has_close {
        quote! {
            fn close<'a>(&'a self) -> ::baton_tools::__private::BoxFuture<'a, ()> {
                ::std::boxed::Box::pin(async move { self.close().await })
            }
        }
    } else {
        quote! {}
    };
    let card_needed = if has_card_needed {
        quote! {
            fn card_needed<'a>(&'a self, call: ::baton_tools::PendingCall<'a>) -> ::baton_tools::__private::BoxFuture<'a, bool> {
                ::std::boxed::Box::pin(async move { self.card_needed(call).await })
            }
        }
    } else {
        quote! {}
    };
    let describe = if has_describe {
        quote! {
            fn describe<'a>(&'a self, call: ::baton_tools::PendingCall<'a>) -> ::baton_tools::__private::BoxFuture<'a, ::std::option::Option<::std::string::String>> {
                ::std::boxed::Box::pin(async move { self.describe(call).await })
            }
        }
    } else {
        quote! {}
    };
    Ok(quote! {
        #imp
        const _: () = {
            #(#arg_structs)*
            impl ::baton_tools::Toolbox for #self_ty {
                fn spec(&self) -> &'static ::baton_tools::ToolboxSpec {
                    static SPEC: ::std::sync::OnceLock<::baton_tools::ToolboxSpec> = ::std::sync::OnceLock::new();
                    SPEC.get_or_init(|| ::baton_tools::ToolboxSpec {
                        name: <#self_ty as ::baton_tools::ToolboxDoc>::NAME.to_string(),
                        summary: <#self_ty as ::baton_tools::ToolboxDoc>::SUMMARY.to_string(),
                        methods: vec![#(#specs),*],
                    })
                }
                fn call<'a>(
                    &'a self,
                    method: &'a str,
                    args: ::baton_tools::__private::serde_json::Value,
                    __ctx: ::baton_tools::ToolContext,
                ) -> ::baton_tools::__private::BoxFuture<'a, ::std::result::Result<::baton_tools::__private::serde_json::Value, ::baton_tools::ToolError>> {
                    ::std::boxed::Box::pin(async move {
                        let _ = &__ctx;
                        match method {
                            #(#arms)*
                            other => Err(::baton_tools::ToolError::UnknownMethod(other.to_string())),
                        }
                    })
                }
                #close
                #card_needed
                #describe
            }
        };
    })
}

/// What one tool method contributes: its argument struct, its spec and
/// its dispatch arm.
struct Expanded {
    arg_struct: proc_macro2::TokenStream,
    spec: proc_macro2::TokenStream,
    arm: proc_macro2::TokenStream,
}

/// Checks a `pub` method's signature, reads its docs and parameters, and
/// generates what the toolbox needs of it.
fn expand_method(f: &mut syn::ImplItemFn) -> syn::Result<Expanded> {
    check_signature(f)?;
    let method = f.sig.ident.clone();
    let method_str = method.to_string();
    let effect = take_effect(&mut f.attrs)?;
    let blocking = f.sig.asyncness.is_none();
    let (description, param_docs) = split_docs(&f.attrs);
    let (params, call_args) = take_params(f)?;
    if let Some((n, _)) = param_docs
        .iter()
        .find(|(n, _)| !params.iter().any(|p| p.ident.unraw() == n.as_str()))
    {
        return Err(syn::Error::new_spanned(
            &f.sig,
            format!("doc comment describes `{n}`, which is not a parameter"),
        ));
    }
    let args_ty = format_ident!("__BatonArgs_{}", method);
    let (fields, default_fns) = arg_fields(&method, &params, &param_docs);
    let call = if f.sig.asyncness.is_some() {
        quote! { self.#method(#(#call_args),*).await }
    } else {
        quote! { self.#method(#(#call_args),*) }
    };
    let docs = param_docs.iter().map(|(n, d)| quote! { (#n, #d) });
    Ok(Expanded {
        arg_struct: quote! {
            #(#default_fns)*
            #[derive(::baton_tools::__private::serde::Deserialize, ::baton_tools::__private::schemars::JsonSchema)]
            #[serde(crate = "::baton_tools::__private::serde", deny_unknown_fields)]
            #[schemars(crate = "::baton_tools::__private::schemars")]
            #[allow(non_camel_case_types, dead_code)]
            struct #args_ty { #(#fields),* }
        },
        spec: quote! {
            ::baton_tools::MethodSpec::new::<#args_ty>(#method_str, #description, &[#(#docs),*])
                .with_effect(::baton_tools::Effect::#effect)
                .blocking(#blocking)
        },
        arm: quote! {
            #method_str => {
                let __a: #args_ty = ::baton_tools::__private::serde_json::from_value(args)
                    .map_err(::baton_tools::ToolError::from_args)?;
                ::baton_tools::__private::into_outcome(#call)
            }
        },
    })
}

/// Tool methods take `&self` and return a `Result`.
fn check_signature(f: &syn::ImplItemFn) -> syn::Result<()> {
    if !matches!(f.sig.inputs.first(), Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none())
    {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "tool methods take `&self` (keep state behind interior mutability)",
        ));
    }
    if matches!(f.sig.output, ReturnType::Default) {
        return Err(syn::Error::new_spanned(
            &f.sig,
            "tool methods return Result<T, E>",
        ));
    }
    Ok(())
}

/// The doc comment split into the description and `- name: text`
/// parameter lines.
fn split_docs(attrs: &[syn::Attribute]) -> (String, Vec<(String, String)>) {
    let mut description = Vec::new();
    let mut param_docs = Vec::new();
    for line in doc_lines(attrs) {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("- ")
            && let Some((n, d)) = rest.split_once(':')
            && n.trim().chars().all(|c| c.is_alphanumeric() || c == '_')
            && !n.trim().is_empty()
        {
            param_docs.push((n.trim().to_string(), d.trim().to_string()));
            continue;
        }
        description.push(line);
    }
    (description.join("\n").trim().to_string(), param_docs)
}

/// The method's parameters (their `#[default(…)]` taken off) and the
/// arguments of the generated call (`&__ctx` for a `ToolContext`).
fn take_params(
    f: &mut syn::ImplItemFn,
) -> syn::Result<(Vec<Param>, Vec<proc_macro2::TokenStream>)> {
    let mut params = Vec::new();
    let mut call_args = Vec::new();
    for input in f.sig.inputs.iter_mut().skip(1) {
        let FnArg::Typed(pt) = input else { continue };
        if is_context(&pt.ty) {
            call_args.push(quote! { &__ctx });
            continue;
        }
        let Pat::Ident(pi) = &*pt.pat else {
            return Err(syn::Error::new_spanned(
                &pt.pat,
                "tool parameters must be plain names",
            ));
        };
        let mut default = None;
        let mut kept = Vec::new();
        for a in pt.attrs.drain(..) {
            if a.path().is_ident("default") {
                default = Some(a.parse_args::<Expr>()?);
            } else {
                kept.push(a);
            }
        }
        pt.attrs = kept;
        let ident = &pi.ident;
        call_args.push(quote! { __a.#ident });
        params.push(Param {
            ident: pi.ident.clone(),
            ty: (*pt.ty).clone(),
            default,
        });
    }
    Ok((params, call_args))
}

/// The argument struct's fields (documented, with serde defaults) and the
/// functions those defaults call.
fn arg_fields(
    method: &syn::Ident,
    params: &[Param],
    param_docs: &[(String, String)],
) -> (Vec<proc_macro2::TokenStream>, Vec<proc_macro2::TokenStream>) {
    let mut fields = Vec::new();
    let mut default_fns = Vec::new();
    for p in params {
        let ident = &p.ident;
        let ty = &p.ty;
        let doc = param_docs
            .iter()
            .find(|(n, _)| p.ident.unraw() == n.as_str())
            .map(|(_, d)| d.clone())
            .unwrap_or_default();
        let mut attrs = vec![quote! { #[doc = #doc] }];
        if let Some(expr) = &p.default {
            let fn_name = format_ident!("__baton_default_{}_{}", method, ident);
            let fn_str = fn_name.to_string();
            default_fns.push(quote! {
                #[allow(non_snake_case, clippy::unnecessary_literal_unwrap)]
                fn #fn_name() -> #ty { ::core::convert::Into::into(#expr) }
            });
            attrs.push(quote! { #[serde(default = #fn_str)] });
        }
        fields.push(quote! { #(#attrs)* #ident: #ty });
    }
    (fields, default_fns)
}
