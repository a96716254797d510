//! `baton secret set|delete|list`: keys in the OS keychain.

use std::io::{IsTerminal, Read};
use std::process::ExitCode;

use anyhow::Context as _;

use crate::args::SecretCommand;
use crate::context::Context;

/// Secret names besides provider entries.
const MAIL_SECRETS: [&str; 2] = ["smtp", "imap"];

fn known_names(ctx: &Context) -> Vec<String> {
    ctx.providers()
        .file()
        .providers
        .iter()
        .map(|p| p.name.clone())
        .chain(MAIL_SECRETS.iter().map(|s| s.to_string()))
        .collect()
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

pub fn run(ctx: &Context, cmd: SecretCommand) -> anyhow::Result<ExitCode> {
    let set_name = match &cmd {
        SecretCommand::Set { name } => Some(name.clone()),
        _ => None,
    };
    let result = match cmd {
        SecretCommand::Set { name } => {
            if !known_names(ctx)
                .iter()
                .any(|n| n.eq_ignore_ascii_case(&name))
            {
                eprintln!(
                    "note: `{name}` is not a provider in providers.json (nor smtp/imap); storing it anyway"
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
            ctx.secrets().set(&name, value.trim()).map(|()| {
                println!("stored the key for {name} in the keychain");
            })
        }
        SecretCommand::Delete { name } => ctx.secrets().delete(&name).map(|deleted| {
            if deleted {
                println!("deleted the key for {name}");
            } else {
                println!("no key stored for {name}");
            }
        }),
        SecretCommand::List => ctx.secrets().list(&known_names(ctx)).map(|names| {
            for n in names {
                println!("{n}");
            }
        }),
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
