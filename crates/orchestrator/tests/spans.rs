//! The tracing spans and seed 001's tags, captured by a test subscriber.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use baton_orchestrator::{
    Ask, CancellationToken, Member, MemberError, Options, Orchestrator, Reply,
};
use futures::future::BoxFuture;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context, SubscriberExt};

type Spans = Arc<Mutex<Vec<(String, BTreeMap<String, String>)>>>;

struct Capture(Spans);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0
            .insert(field.name().to_string(), format!("{value:?}"));
    }
}

impl<S> tracing_subscriber::Layer<S> for Capture
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(
        &self,
        attrs: &tracing::span::Attributes<'_>,
        id: &tracing::span::Id,
        _: Context<'_, S>,
    ) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let mut spans = self.0.lock().unwrap();
        spans.push((
            format!("{}#{}", attrs.metadata().name(), id.into_u64()),
            fields,
        ));
    }

    fn on_record(
        &self,
        id: &tracing::span::Id,
        values: &tracing::span::Record<'_>,
        _: Context<'_, S>,
    ) {
        let mut spans = self.0.lock().unwrap();
        let key = format!("#{}", id.into_u64());
        if let Some((_, fields)) = spans.iter_mut().rev().find(|(n, _)| n.ends_with(&key)) {
            values.record(&mut Fields(fields));
        }
    }
}

struct Echo(Vec<String>);

impl Member for Echo {
    fn name(&self) -> &str {
        "echo"
    }
    fn specialisations(&self) -> &[String] {
        &self.0
    }
    fn ask(&self, ask: Ask, _: CancellationToken) -> BoxFuture<'_, Result<Reply, MemberError>> {
        Box::pin(async move {
            let text = if ask.brief.contains("You plan") {
                r#"[{"task": "a", "specialisation": "x"}, {"task": "b", "specialisation": "x"}]"#
                    .to_string()
            } else {
                "done".to_string()
            };
            Ok(Reply { text, tokens: 5 })
        })
    }
}

#[tokio::test]
async fn spans_carry_the_session_and_the_tags() {
    let spans: Spans = Arc::default();
    let subscriber = tracing_subscriber::registry().with(Capture(Arc::clone(&spans)));
    let _guard = tracing::subscriber::set_default(subscriber);
    let options = Options {
        max_tokens: Some(1000),
        enable_peer_review: false,
        max_revise_attempts: 2,
        ..Options::default()
    };
    let orch = Orchestrator::new(vec![Arc::new(Echo(vec!["x".into()]))], options).unwrap();
    let r = orch
        .orchestrate("Two parts please", &[], CancellationToken::new())
        .await
        .unwrap();
    assert!(r.success, "{:?}", r.error);
    let spans = spans.lock().unwrap();
    let find = |name: &str| {
        spans
            .iter()
            .find(|(n, _)| n.starts_with(&format!("{name}#")))
            .unwrap_or_else(|| panic!("no span {name}: {spans:?}"))
            .1
            .clone()
    };
    let top = find("orchestrator.orchestrate");
    assert_eq!(top["orchestrator.session_id"], r.session_id);
    assert_eq!(top["orchestrator.prompt_length"], "16");
    assert_eq!(top["orchestrator.max_tokens"], "1000");
    assert_eq!(top["orchestrator.enable_peer_review"], "false");
    assert_eq!(top["orchestrator.max_revise_attempts"], "2");
    assert_eq!(top["orchestrator.assignments_count"], "2");
    assert_eq!(
        top["orchestrator.tokens_consumed"],
        r.total_tokens.to_string()
    );
    assert_eq!(
        find("orchestrator.plan")["orchestrator.session_id"],
        r.session_id
    );
    assert_eq!(
        find("orchestrator.synthesize")["orchestrator.session_id"],
        r.session_id
    );
}
