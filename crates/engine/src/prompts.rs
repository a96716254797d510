//! MCP prompts as prompt sources: `/prompts` lists what the servers and
//! plugins offer, `/prompt NAME [ARG=VALUE…]` sends a prompt's text as
//! the message (in every front door that has a conversation).

use std::collections::BTreeMap;

use baton_mcp::PromptInfo;

use crate::Tools;

/// The lines `/prompts` and `/prompt` add to `/help`.
pub const PROMPT_HELP: &str = "\
/prompts                 the prompts of the MCP servers and plugins
/prompt NAME [ARG=VALUE…]  send that prompt (SERVER:NAME when two servers have it)";

/// What `/prompts` answers.
pub(crate) fn listing(prompts: &[PromptInfo]) -> String {
    if prompts.is_empty() {
        return "No MCP server or plugin offers prompts.".into();
    }
    let mut out = String::from("Prompts (send one with /prompt NAME ARG=VALUE…):");
    for p in prompts {
        let args: Vec<String> = p
            .arguments
            .iter()
            .map(|a| match a.required {
                true => format!("{}=…", a.name),
                false => format!("[{}=…]", a.name),
            })
            .collect();
        out.push_str(&format!("\n  {}:{} {}", p.server, p.name, args.join(" ")));
        if let Some(d) = &p.description {
            out.push_str(&format!("\n      {d}"));
        }
    }
    out
}

/// The text `/prompt NAME [ARG=VALUE…]` sends: the prompt of the
/// server that has it (`SERVER:NAME` picks one), its arguments filled
/// in; `Err` says what is wrong in words.
pub(crate) async fn expand(tools: &Tools<'_>, command: &str) -> Result<String, String> {
    let words = shell_words::split(command.trim()).map_err(|e| format!("/prompt: {e}"))?;
    let Some((name, rest)) = words.split_first() else {
        return Err("/prompt needs a prompt's name; /prompts lists them".into());
    };
    let mut args = BTreeMap::new();
    for word in rest {
        let (k, v) = word
            .split_once('=')
            .ok_or_else(|| format!("/prompt: `{word}` is not ARG=VALUE"))?;
        args.insert(k.to_string(), v.to_string());
    }
    let prompts = tools.prompts().await;
    let (server, wanted) = match name.split_once(':') {
        Some((s, n)) => (Some(s), n),
        None => (None, name.as_str()),
    };
    let found: Vec<&PromptInfo> = prompts
        .iter()
        .filter(|p| p.name == wanted && server.is_none_or(|s| s == p.server))
        .collect();
    let prompt = match found.as_slice() {
        [one] => *one,
        [] => return Err(format!("there is no prompt `{name}`; /prompts lists them")),
        _ => {
            return Err(format!(
                "several servers have a prompt `{name}`: write SERVER:{name}"
            ));
        }
    };
    if let Some(missing) = prompt
        .arguments
        .iter()
        .find(|a| a.required && !args.contains_key(&a.name))
    {
        return Err(format!("the prompt `{name}` needs {}=…", missing.name));
    }
    tools
        .mcp()
        .prompt_text(&prompt.server, &prompt.name, args)
        .await
}
