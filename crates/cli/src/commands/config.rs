//! `baton config show|set`.

use std::process::ExitCode;

use baton_engine::api::mask;
use baton_engine::api::settings::Settings;
use serde_json::{Map, Value, json};

use crate::args::ConfigCommand;
use crate::context::Context;

fn secrets_view(ctx: &Context) -> Value {
    let mut out = Map::new();
    for p in ctx
        .providers()
        .file()
        .providers
        .iter()
        .filter(|p| p.needs_key())
    {
        let state = match ctx.secrets().api_key(&p.name, p.api_key_env.as_deref()) {
            Ok(Some(k)) => match k.source {
                baton_engine::api::settings::KeySource::Env(v) => {
                    format!("{} (from ${v})", mask(&k.value))
                }
                baton_engine::api::settings::KeySource::Keychain => {
                    format!("{} (keychain)", mask(&k.value))
                }
            },
            Ok(None) => "not set".into(),
            Err(e) => format!("unknown: {e}"),
        };
        out.insert(p.name.clone(), json!(state));
    }
    Value::Object(out)
}

pub fn run(ctx: &Context, cmd: ConfigCommand) -> anyhow::Result<ExitCode> {
    match cmd {
        ConfigCommand::Show { json } => {
            let view = json!({
                "settingsFile": ctx.paths().settings_file(),
                "configDir": ctx.paths().config_dir,
                "dataDir": ctx.paths().data_dir,
                "modelsDir": ctx.paths().models_dir,
                "workspace": ctx.workspace(),
                "provider": ctx.settings().provider.clone().unwrap_or_else(|| ctx.providers().file().default.clone()),
                "settings": ctx.settings(),
                "secrets": secrets_view(ctx),
            });
            if json {
                println!("{}", serde_json::to_string_pretty(&view)?);
            } else {
                println!("settings file: {}", ctx.paths().settings_file().display());
                println!("data folder:   {}", ctx.paths().data_dir.display());
                println!("models folder: {}", ctx.paths().models_dir.display());
                println!("workspace:     {}", ctx.workspace().display());
                println!("provider:      {}", view["provider"].as_str().unwrap_or(""));
                println!(
                    "settings:\n{}",
                    serde_json::to_string_pretty(ctx.settings())?
                );
                println!("secrets:");
                for (name, state) in view["secrets"].as_object().into_iter().flatten() {
                    println!("  {name:<20} {}", state.as_str().unwrap_or(""));
                }
            }
            Ok(ExitCode::SUCCESS)
        }
        ConfigCommand::Set { key, value } => {
            let path = ctx.paths().settings_file();
            let mut settings: Settings = ctx.settings().clone();
            if let Err(e) = settings.set(&key, &value) {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            if key == "provider"
                && let Some(name) = &settings.provider
                && let Err(e) = ctx.providers().file().require(name)
            {
                eprintln!("error: {e}");
                return Ok(ExitCode::from(2));
            }
            ctx.update_settings(|s| s.set(&key, &value))?;
            println!("{key} = {value}  (saved to {})", path.display());
            Ok(ExitCode::SUCCESS)
        }
    }
}
