//! From response bytes to [`LlmEvent`]s: framing (SSE or NDJSON) and the
//! dialect's decoder. Public so that benchmarks and tests drive the exact
//! code path the HTTP client uses.

use bytes::Bytes;
use futures::{Stream, StreamExt};

use crate::config::Dialect;
use crate::dialect;
use crate::event::LlmEvent;

/// How a response body is cut into frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// Server-sent events (`text/event-stream`).
    Sse,
    /// Newline-delimited JSON.
    Ndjson,
}

/// Why a stream could not be decoded.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WireError {
    /// Reading the body failed.
    #[error("the connection broke while reading the reply: {0}")]
    Transport(String),
    /// A frame was not what the dialect defines.
    #[error("{0}")]
    Malformed(String),
    /// The provider reported an error inside the stream.
    #[error("the provider reported an error: {0}")]
    Provider(String),
    /// The stream ended before its end marker.
    #[error("the reply stream ended before it was complete (no end marker)")]
    Truncated,
}

/// Turns one frame into events; a decoder per dialect.
pub(crate) trait FrameDecoder: Send {
    /// One frame: the SSE event name (empty for NDJSON) and its data.
    fn frame(&mut self, event: &str, data: &str, out: &mut Vec<LlmEvent>) -> Result<(), WireError>;
    /// Whether the end marker was seen (stop reading).
    fn is_done(&self) -> bool;
    /// Whether the body may end here without being truncated. Dialects
    /// without an end marker (Gemini) read to the end of the body.
    fn ended_ok(&self) -> bool {
        self.is_done()
    }
}

/// The framing a dialect's responses use.
pub fn framing(dialect: Dialect) -> Framing {
    match dialect {
        Dialect::Ollama | Dialect::Local => Framing::Ndjson,
        _ => Framing::Sse,
    }
}

/// Splits bytes into lines. Written here because the NDJSON framing is
/// this one loop, and tokio-util's `LinesCodec` would need an
/// `AsyncRead` adapter and a UTF-8 `String` per line on top of it.
#[derive(Debug, Default)]
pub struct LineSplitter {
    buf: Vec<u8>,
}

impl LineSplitter {
    /// Appends `chunk` and calls `f` with each complete line (without the
    /// line ending).
    pub fn push<E>(
        &mut self,
        chunk: &[u8],
        mut f: impl FnMut(&[u8]) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut rest = chunk;
        while let Some(nl) = rest.iter().position(|&b| b == b'\n') {
            let (line, tail) = rest.split_at(nl);
            if self.buf.is_empty() {
                f(trim_cr(line))?;
            } else {
                self.buf.extend_from_slice(line);
                let whole = std::mem::take(&mut self.buf);
                f(trim_cr(&whole))?;
            }
            rest = &tail[1..];
        }
        self.buf.extend_from_slice(rest);
        Ok(())
    }

    /// The unterminated last line, if any.
    pub fn finish(&mut self) -> Option<Vec<u8>> {
        (!self.buf.is_empty()).then(|| std::mem::take(&mut self.buf))
    }
}

fn trim_cr(line: &[u8]) -> &[u8] {
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// Decodes a response body of `dialect` into events. The stream ends with
/// `Err(WireError::Truncated)` when the body stops before the dialect's end
/// marker.
pub fn decode<S, E>(
    dialect: Dialect,
    body: S,
) -> impl Stream<Item = Result<LlmEvent, WireError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: std::fmt::Display + Send + 'static,
{
    let decoder = dialect::decoder(dialect);
    match framing(dialect) {
        Framing::Sse => decode_sse(body, decoder).left_stream(),
        Framing::Ndjson => decode_ndjson(body, decoder).right_stream(),
    }
}

fn decode_sse<S, E>(
    body: S,
    decoder: Box<dyn FrameDecoder>,
) -> impl Stream<Item = Result<LlmEvent, WireError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: std::fmt::Display + Send + 'static,
{
    use eventsource_stream::Eventsource;
    let frames = body.eventsource();
    futures::stream::unfold(
        (frames, decoder, false),
        |(mut frames, mut decoder, ended)| async move {
            if ended {
                return None;
            }
            let mut out: Vec<Result<LlmEvent, WireError>> = Vec::new();
            let mut events = Vec::new();
            let mut stop = false;
            while out.is_empty() && !stop {
                if decoder.is_done() {
                    return None;
                }
                match frames.next().await {
                    Some(Ok(ev)) => match decoder.frame(&ev.event, &ev.data, &mut events) {
                        Ok(()) => out.extend(events.drain(..).map(Ok)),
                        Err(e) => {
                            out.extend(events.drain(..).map(Ok));
                            out.push(Err(e));
                            stop = true;
                        }
                    },
                    Some(Err(e)) => {
                        out.push(Err(match e {
                            eventsource_stream::EventStreamError::Transport(t) => {
                                WireError::Transport(t.to_string())
                            }
                            other => WireError::Malformed(format!("bad event stream: {other}")),
                        }));
                        stop = true;
                    }
                    None if decoder.ended_ok() => return None,
                    None => {
                        out.push(Err(WireError::Truncated));
                        stop = true;
                    }
                }
            }
            Some((futures::stream::iter(out), (frames, decoder, stop)))
        },
    )
    .flatten()
}

fn decode_ndjson<S, E>(
    body: S,
    decoder: Box<dyn FrameDecoder>,
) -> impl Stream<Item = Result<LlmEvent, WireError>> + Send
where
    S: Stream<Item = Result<Bytes, E>> + Send + Unpin + 'static,
    E: std::fmt::Display + Send + 'static,
{
    futures::stream::unfold(
        (body, decoder, LineSplitter::default(), false),
        |(mut body, mut decoder, mut lines, ended)| async move {
            if ended || decoder.is_done() {
                return None;
            }
            let mut out = Vec::new();
            loop {
                let result = match body.next().await {
                    Some(Ok(chunk)) => {
                        lines.push(&chunk, |line| frame_line(&mut *decoder, line, &mut out))
                    }
                    Some(Err(e)) => Err(WireError::Transport(e.to_string())),
                    None => {
                        let last = lines.finish();
                        let r = match last {
                            Some(l) => frame_line(&mut *decoder, &l, &mut out),
                            None => Ok(()),
                        };
                        match r {
                            Ok(()) if decoder.ended_ok() => Ok(()),
                            Ok(()) => Err(WireError::Truncated),
                            Err(e) => Err(e),
                        }
                    }
                };
                match result {
                    Err(e) => {
                        let items: Vec<_> = out.into_iter().map(Ok).chain([Err(e)]).collect();
                        return Some((futures::stream::iter(items), (body, decoder, lines, true)));
                    }
                    Ok(()) if out.is_empty() && !decoder.is_done() => continue,
                    Ok(()) => {
                        let items: Vec<_> = out.into_iter().map(Ok).collect();
                        return Some((futures::stream::iter(items), (body, decoder, lines, false)));
                    }
                }
            }
        },
    )
    .flatten()
}

fn frame_line(
    decoder: &mut dyn FrameDecoder,
    line: &[u8],
    out: &mut Vec<LlmEvent>,
) -> Result<(), WireError> {
    if line.iter().all(u8::is_ascii_whitespace) || decoder.is_done() {
        return Ok(());
    }
    let text = std::str::from_utf8(line)
        .map_err(|_| WireError::Malformed("a line of the reply is not valid UTF-8".into()))?;
    decoder.frame("", text, out)
}

/// Shortens provider text for error messages.
pub(crate) fn excerpt(s: &str) -> String {
    const MAX: usize = 300;
    let s = s.trim();
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_splitter_joins_lines_across_chunks() {
        let mut s = LineSplitter::default();
        let mut got = Vec::new();
        for chunk in [&b"ab"[..], b"c\r\nde", b"f\n\ng", b"h"] {
            s.push::<()>(chunk, |l| {
                got.push(String::from_utf8(l.to_vec()).unwrap());
                Ok(())
            })
            .unwrap();
        }
        assert_eq!(got, ["abc", "def", ""]);
        assert_eq!(s.finish().unwrap(), b"gh");
    }
}
