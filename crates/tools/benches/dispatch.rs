//! Tool-call figures: repair + validate + dispatch of one call, and the
//! Markdown manual for 100 methods, each next to `serde_json::from_str` of
//! the same payload in the same run (`scripts/bench.sh` prints ratios).

use std::sync::{Arc, OnceLock};

use baton_tools::{Catalog, MethodSpec, ToolError, Toolbox, ToolboxSpec, toolbox};
use criterion::{Criterion, criterion_group, criterion_main};
use futures::future::BoxFuture;
use serde_json::Value;

/// Fills in forms.
#[toolbox]
pub struct Forms;

#[toolbox]
impl Forms {
    /// Fills the named fields of a form.
    /// - form: the form's name
    /// - fields: field names to fill
    /// - count: how many copies
    pub fn fill_fields(
        &self,
        form: String,
        fields: Vec<String>,
        #[default(1u32)] count: u32,
    ) -> Result<usize, String> {
        Ok(form.len() + fields.len() + count as usize)
    }
}

#[derive(schemars::JsonSchema, serde::Deserialize)]
#[allow(dead_code)]
struct Args {
    /// A path.
    path: String,
    /// How many.
    count: Option<u32>,
    /// Flags.
    tags: Vec<String>,
}

/// A toolbox of 100 generated methods, for rendering figures.
struct Hundred;

impl Toolbox for Hundred {
    fn spec(&self) -> &'static ToolboxSpec {
        static SPEC: OnceLock<ToolboxSpec> = OnceLock::new();
        SPEC.get_or_init(|| ToolboxSpec {
            name: "Hundred".into(),
            summary: "One hundred methods.".into(),
            methods: (0..100)
                .map(|i| {
                    MethodSpec::new::<Args>(
                        &format!("method_{i}"),
                        "Does one thing to a path, a number of times.",
                        &[
                            ("path", "the path"),
                            ("count", "how many times"),
                            ("tags", "labels"),
                        ],
                    )
                })
                .collect(),
        })
    }

    fn call<'a>(
        &'a self,
        _m: &'a str,
        _a: Value,
        _ctx: baton_tools::ToolContext,
    ) -> BoxFuture<'a, Result<Value, ToolError>> {
        Box::pin(async { Ok(Value::Null) })
    }
}

const RAW: &str = r#"{"method": "FillFields", "form": "tax return 2026", "fields": ["name", "address", "income"], "count": "2"}"#;

fn bench(c: &mut Criterion) {
    let catalog = Catalog::new().with(Arc::new(Forms)).unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    let mut g = c.benchmark_group("tool_call");
    g.bench_function("baton_repair_validate_dispatch", |b| {
        b.iter(|| rt.block_on(catalog.dispatch_raw(std::hint::black_box(RAW))))
    });
    g.bench_function("serde_json_from_str_baseline", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(RAW)).unwrap())
    });
    g.finish();

    let big = Catalog::new().with(Arc::new(Hundred)).unwrap();
    let manual = big.markdown();
    assert!(manual.contains("### method_99"));
    let listing = big.json_listing().to_string();
    let mut g = c.benchmark_group("catalog_100_methods");
    g.bench_function("baton_markdown_manual", |b| b.iter(|| big.markdown()));
    g.bench_function("baton_native_tools", |b| b.iter(|| big.native_tools()));
    g.bench_function("serde_json_from_str_baseline", |b| {
        b.iter(|| serde_json::from_str::<Value>(std::hint::black_box(&listing)).unwrap())
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
