//! `baton secret set|delete|list`: keys in the OS keychain.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use anyhow::Context as _;

use baton_engine::api::settings::SecretName;

use crate::args::SecretCommand;
use crate::context::Context;

/// The secrets Baton knows of: each provider's key and the two mail
/// passwords.
fn known(ctx: &Context) -> Vec<(String, SecretName)> {
    ctx.providers()
        .file()
        .providers
        .iter()
        .map(|p| (p.name.clone(), SecretName::Provider(p.name.clone())))
        .chain([
            ("imap".to_string(), SecretName::Imap),
            ("smtp".to_string(), SecretName::Smtp),
        ])
        .collect()
}

/// The secret `name` stands for: `imap`/`smtp` the mail passwords, a
/// provider's name its key, `provider:NAME` and `mail:KIND` as written,
/// anything else a secret of that name (for `${keychain:NAME}`).
fn secret_for(ctx: &Context, name: &str) -> SecretName {
    if let Some(mail) = SecretName::mail(name) {
        return mail;
    }
    if let Some(kind) = name.strip_prefix("mail:")
        && let Some(mail) = SecretName::mail(kind)
    {
        return mail;
    }
    if let Some(provider) = name.strip_prefix("provider:") {
        return SecretName::Provider(provider.to_string());
    }
    match known(ctx)
        .into_iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
    {
        Some((_, secret)) => secret,
        None => SecretName::Named(name.to_string()),
    }
}

/// The environment variable that can stand in for `name`'s keychain entry.
fn env_hint(ctx: &Context, name: &str) -> Option<String> {
    let p = ctx
        .providers()
        .file()
        .providers
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name))?;
    Some(
        p.api_key_env
            .clone()
            .unwrap_or_else(|| baton_engine::api::settings::conventional_env(&p.name)),
    )
}

/// Prints the known secrets that are kept: `NAME (ENTRY)`.
fn list(ctx: &Context) -> Result<(), baton_engine::api::settings::SecretError> {
    for (name, secret) in known(ctx) {
        if ctx.secrets().read(&secret)?.is_some() {
            println!("{name} ({secret})");
        }
    }
    Ok(())
}

pub fn run(ctx: &Context, cmd: SecretCommand) -> anyhow::Result<ExitCode> {
    let set_name = match &cmd {
        SecretCommand::Set { name } => Some(name.clone()),
        _ => None,
    };
    let result = match cmd {
        SecretCommand::Set { name } => {
            let secret = secret_for(ctx, &name);
            if let SecretName::Named(_) = secret {
                eprintln!(
                    "note: `{name}` is not a provider in providers.json (nor smtp/imap); storing it as `${{keychain:{name}}}`"
                );
            }
            let value = if std::io::stdin().is_terminal() {
                rpassword::prompt_password(format!("Key for {name} (not shown): "))
                    .context("reading the key")?
            } else {
                let mut s = String::new();
                std::io::stdin()
                    .read_to_string(&mut s)
                    .context("reading the key from stdin")?;
                s
            };
            ctx.secrets().write(&secret, value.trim()).map(|()| {
                println!("stored the key for {name} in the keychain ({secret})");
            })
        }
        SecretCommand::Delete { name } => {
            ctx.secrets()
                .remove(&secret_for(ctx, &name))
                .map(|deleted| {
                    if deleted {
                        println!("deleted the key for {name}");
                    } else {
                        println!("no key stored for {name}");
                    }
                })
        }
        SecretCommand::List => list(ctx),
    };
    match result {
        Ok(()) => Ok(ExitCode::SUCCESS),
        Err(e) => {
            eprintln!("error: {e}");
            if let (baton_engine::api::settings::SecretError::NoKeychain { .. }, Some(name)) =
                (&e, set_name)
                && let Some(var) = env_hint(ctx, &name)
            {
                eprintln!("hint: set {var} in the environment for {name}");
            }
            Ok(ExitCode::FAILURE)
        }
    }
}
