//! Stream parsing throughput: a recorded-format 10 MB SSE stream (OpenAI
//! dialect) and a 10 MB NDJSON stream (Ollama) decoded into events by the
//! same code the HTTP client runs, against plain line splits of the same
//! bytes in the same run. `scripts/bench.sh` turns the results into ratios.

use std::io::BufRead;

use baton_llm::{Dialect, LlmEvent, wire};
use baton_scripted_llm::{Reply, WireDialect, render_reply};
use bytes::Bytes;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use futures::StreamExt;

const TARGET: usize = 10 * 1024 * 1024;

/// A reply whose stream is about 10 MB: many small text deltas, like a
/// long answer streamed token by token.
fn stream_bytes(dialect: WireDialect) -> Vec<u8> {
    let word = "token ";
    let probe = render_reply(
        dialect,
        &Reply {
            text: word.repeat(1000),
            text_pieces: 1000,
            ..Reply::default()
        },
    );
    let per_piece = probe.len() / 1000;
    let pieces = TARGET / per_piece;
    render_reply(
        dialect,
        &Reply {
            text: word.repeat(pieces),
            text_pieces: pieces,
            ..Reply::default()
        },
    )
}

/// The body as the network delivers it: 16 KiB chunks.
fn chunks(bytes: &[u8]) -> Vec<Bytes> {
    bytes
        .chunks(16 * 1024)
        .map(Bytes::copy_from_slice)
        .collect()
}

fn decode_count(dialect: Dialect, chunks: &[Bytes]) -> usize {
    // `decode` wants an owned ('static) stream; cloning `Bytes` is a refcount bump.
    let owned: Vec<Bytes> = chunks.to_vec();
    let body = futures::stream::iter(owned.into_iter().map(Ok::<_, std::io::Error>));
    futures::executor::block_on(async {
        let mut s = Box::pin(wire::decode(dialect, body));
        let mut n = 0;
        while let Some(ev) = s.next().await {
            if let LlmEvent::TextDelta(_) = ev.expect("valid stream") {
                n += 1;
            }
        }
        n
    })
}

/// Baseline: `BufRead::lines` over the same chunks (UTF-8 checked, one
/// `String` per line — the least any line-based parser does).
fn line_split_count(chunks: &[Bytes]) -> usize {
    let joined: Vec<u8> = chunks.concat();
    std::io::Cursor::new(joined)
        .lines()
        .filter(|l| !l.as_ref().expect("utf-8").is_empty())
        .count()
}

fn bench(c: &mut Criterion) {
    for (name, wire_dialect, dialect) in [
        ("sse_openai", WireDialect::Openai, Dialect::Openai),
        ("ndjson_ollama", WireDialect::Ollama, Dialect::Ollama),
    ] {
        let bytes = stream_bytes(wire_dialect);
        let body = chunks(&bytes);
        assert!(decode_count(dialect, &body) > 1000);
        let mut g = c.benchmark_group(name);
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.sample_size(20);
        g.bench_function("baton_decode", |b| b.iter(|| decode_count(dialect, &body)));
        g.bench_function("line_split_baseline", |b| {
            b.iter(|| line_split_count(&body))
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
