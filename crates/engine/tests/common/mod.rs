//! What the engine's integration tests share: Baton's folders in a temp
//! dir with providers on the scripted server, request bodies, and reading
//! a turn to its end.
#![allow(dead_code)]

use std::path::Path;
use std::sync::Arc;

use baton_agent::{AgentEvent, TurnOutcome};
use baton_engine::{Engine, Overrides, Turn};
use baton_scripted_llm::ScriptedServer;
use baton_test_support::TestHome;
use chrono::TimeZone;
use serde_json::{Value, json};

/// Baton's folders in a temp dir.
pub struct Setup {
    pub home: TestHome,
}

impl Setup {
    /// Baton's folders in a temp dir: providers on `server`, the
    /// diagnostics toolbox on, no background indexing.
    pub fn new(server: &ScriptedServer) -> Self {
        let home = TestHome::new();
        home.write_providers(&server.url(), Some(200_000));
        home.write_settings(json!({"skipIndexingOnStartup": true, "diagnosticTools": true}));
        Self { home }
    }

    /// A freshly loaded engine (as after a restart), its clock stopped at
    /// 2026-12-01 09:00 +01:00 so requests are the same bytes every run.
    pub fn engine(&self) -> Arc<Engine> {
        let overrides = Overrides {
            providers: Some(self.root().join("providers.json")),
            ..Overrides::default()
        };
        let stopped = chrono::FixedOffset::east_opt(3600)
            .unwrap()
            .with_ymd_and_hms(2026, 12, 1, 9, 0, 0)
            .unwrap();
        let engine = Engine::load_with(self.home.paths(), overrides).unwrap();
        Arc::new(engine.with_clock(Arc::new(move || stopped)))
    }

    pub fn root(&self) -> &Path {
        self.home.root()
    }
}

/// The chat-completion request bodies, in order.
pub fn bodies(server: &ScriptedServer) -> Vec<Value> {
    server
        .requests()
        .iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| r.json())
        .collect()
}

/// Reads a turn to its end: its outcome and every top-level event.
pub async fn collect(mut turn: Turn) -> (TurnOutcome, Vec<AgentEvent>) {
    let mut events = Vec::new();
    let mut outcome = None;
    while let Some(e) = turn.next().await {
        assert_eq!(&e.turn, turn.id());
        if let AgentEvent::Finished(o) = &e.event {
            outcome = Some((**o).clone());
        }
        events.push(e.event);
    }
    (outcome.expect("a Finished event"), events)
}
