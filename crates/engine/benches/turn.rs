//! Engine overhead per turn: opening a conversation, sending a message and
//! reading the streamed turn to its end, next to calling the provider
//! directly, both on the scripted server with zero delay (its echo reply),
//! in the same run (`scripts/bench.sh` prints the difference).

use std::sync::Arc;

use baton_engine::{ConversationOptions, Engine, Overrides, UserMessage};
use baton_llm::{ChatRequest, Message};
use baton_scripted_llm::ScriptedServer;
use baton_test_support::TestHome;
use criterion::{Criterion, criterion_group, criterion_main};
use futures::StreamExt;
use tokio_util::sync::CancellationToken;

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let server = rt.block_on(ScriptedServer::start()).unwrap();
    let home = TestHome::new();
    let overrides = Overrides {
        providers: Some(home.write_providers(&server.url(), None)),
        workspace: Some(home.workspace()),
        ..Overrides::default()
    };
    let engine = Arc::new(Engine::load_with(home.paths(), overrides).unwrap());
    let cfg = engine.providers().config(None).unwrap();
    let provider = engine.providers().open(&cfg).unwrap();
    let options = ConversationOptions {
        tools: false,
        persist: false,
        ..ConversationOptions::default()
    };

    let mut g = c.benchmark_group("turn");
    g.bench_function("provider_direct_baseline", |b| {
        b.iter(|| {
            rt.block_on(async {
                let request = ChatRequest::new(vec![Message::user("hello")]);
                let mut stream = provider
                    .stream(request, CancellationToken::new())
                    .await
                    .unwrap();
                while let Some(e) = stream.next().await {
                    e.unwrap();
                }
            })
        })
    });
    g.bench_function("engine_open_send_stream_finish", |b| {
        b.iter(|| {
            rt.block_on(async {
                let conversation = engine.conversations().open(None, options.clone()).unwrap();
                let turn = conversation.send(UserMessage::text("hello"));
                let outcome = turn.finish().await.unwrap();
                assert!(outcome.stop.is_success());
            })
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
