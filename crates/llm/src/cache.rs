//! Where per-call dynamic context and cache breakpoints go. This is the
//! one place that decides it; dialects only render the result.
//!
//! - `PrefixCache`: the history is sent exactly as stored, so the request
//!   prefix is byte-identical between turns; dynamic context is appended
//!   to the last user message (or as a trailing user message after tool
//!   results) and never stored.
//! - `noCacheSupported`: dynamic context goes at the start of the prompt
//!   (ahead of the system text).
//! - `AnthropicCache`: like `PrefixCache`, plus one breakpoint on the last
//!   system block and one on the last tool — two of Anthropic's four —
//!   with dynamic context after both.

use crate::config::CacheType;
use crate::history::{ContentPart, Message};
use crate::request::ChatRequest;

/// Anthropic allows at most this many `cache_control` breakpoints.
pub const MAX_ANTHROPIC_BREAKPOINTS: usize = 4;

/// The messages to render, with dynamic context placed.
#[derive(Debug, Clone, PartialEq)]
pub struct Prepared {
    /// Messages in order.
    pub messages: Vec<Message>,
    /// Put a breakpoint on the last system block.
    pub breakpoint_on_system: bool,
    /// Put a breakpoint on the last tool definition.
    pub breakpoint_on_tools: bool,
}

/// Places `request.dynamic_context` according to `cache`.
pub fn prepare(cache: CacheType, request: &ChatRequest) -> Prepared {
    let mut messages = request.messages.clone();
    let dynamic = request
        .dynamic_context
        .as_deref()
        .filter(|d| !d.trim().is_empty());
    match (cache, dynamic) {
        (_, None) => {}
        (CacheType::NoCacheSupported, Some(d)) => match messages.first_mut() {
            Some(Message::System { content }) => *content = format!("{d}\n\n{content}"),
            _ => messages.insert(0, Message::system(d)),
        },
        (CacheType::PrefixCache | CacheType::AnthropicCache, Some(d)) => {
            let part = ContentPart::Text {
                text: d.to_string(),
            };
            match messages.last_mut() {
                Some(Message::User { content }) => content.push(part),
                _ => messages.push(Message::User {
                    content: vec![part],
                }),
            }
        }
    }
    let anthropic = cache == CacheType::AnthropicCache;
    Prepared {
        breakpoint_on_system: anthropic
            && messages.iter().any(|m| matches!(m, Message::System { .. })),
        breakpoint_on_tools: anthropic && !request.tools.is_empty(),
        messages,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn req(dynamic: Option<&str>) -> ChatRequest {
        ChatRequest {
            messages: vec![Message::system("sys"), Message::user("hi")],
            dynamic_context: dynamic.map(str::to_string),
            ..Default::default()
        }
    }

    #[test]
    fn prefix_cache_appends_to_last_user_message() {
        let p = prepare(CacheType::PrefixCache, &req(Some("TOC")));
        assert_eq!(p.messages.len(), 2);
        assert_eq!(p.messages[1].text(), "hi\n\nTOC");
        assert!(!p.breakpoint_on_system);
    }

    #[test]
    fn no_cache_puts_context_first() {
        let p = prepare(CacheType::NoCacheSupported, &req(Some("TOC")));
        assert_eq!(p.messages[0].text(), "TOC\n\nsys");
        assert_eq!(p.messages[1].text(), "hi");
    }

    #[test]
    fn after_tool_results_context_is_a_trailing_user_message() {
        let mut r = req(Some("TOC"));
        r.messages.push(Message::tool("c", "t", "{}", false));
        let p = prepare(CacheType::PrefixCache, &r);
        assert_eq!(p.messages.len(), 4);
        assert_eq!(p.messages[3], Message::user("TOC"));
    }

    #[test]
    fn request_history_is_never_modified() {
        let r = req(Some("TOC"));
        let _ = prepare(CacheType::PrefixCache, &r);
        assert_eq!(r.messages[1].text(), "hi");
    }
}
