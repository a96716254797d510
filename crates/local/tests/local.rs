//! The embedded model, for real: SmolLM2-135M-Instruct from the models
//! folder (`make setup` fetches it; `BATON_MODELS_DIR` points at it).

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use baton_llm::{
    ChatRequest, CompletionBuilder, LlmError, LlmEvent, Message, Provider, ProviderConfig,
    ToolDefinition,
};
use baton_local::LocalProvider;
use baton_tools::{Catalog, Sandbox};
use futures::StreamExt;
use serde_json::{Value, json};
use tokio_util::sync::CancellationToken;

fn models_dir() -> PathBuf {
    let dir = std::env::var_os("BATON_MODELS_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var("HOME").unwrap()).join(".local/share/baton/models")
        });
    assert!(
        dir.join("SmolLM2-135M-Instruct.Q4_1.gguf").exists(),
        "the embedded model is missing in {}: run `make setup`",
        dir.display()
    );
    dir
}

fn config(context: u32) -> ProviderConfig {
    serde_json::from_value(
        json!({"name": "local", "dialect": "local", "modelPath": "SmolLM2-135M-Instruct.Q4_1.gguf",
        "contextWindow": context, "maxOutputTokens": 96, "temperature": 0.0, "threads": 2}),
    )
    .unwrap()
}

async fn collect(
    p: &dyn Provider,
    req: ChatRequest,
) -> Result<(usize, baton_llm::Completion), LlmError> {
    let mut s = p.stream(req, CancellationToken::new()).await?;
    let mut b = CompletionBuilder::default();
    let mut deltas = 0;
    while let Some(ev) = s.next().await {
        let ev = ev?;
        if matches!(ev, LlmEvent::TextDelta(_)) {
            deltas += 1;
        }
        b.push(ev);
    }
    Ok((deltas, b.finish()))
}

#[tokio::test(flavor = "multi_thread")]
async fn chat_streams_and_cancels() {
    let p = LocalProvider::new(config(2048), &models_dir());
    let mut progress = p.subscribe_progress();
    let req = ChatRequest::new(vec![Message::user(
        "What is the capital of France? Answer in one sentence.",
    )]);
    let (deltas, c) = collect(&p, req).await.unwrap();
    assert!(
        deltas > 3,
        "the answer must stream token by token, got {deltas} deltas"
    );
    assert!(c.text.to_lowercase().contains("paris"), "{}", c.text);
    assert!(
        c.usage.prompt_tokens > 5 && c.usage.completion_tokens > 3,
        "{:?}",
        c.usage
    );
    // Loading was reported.
    let mut last = None;
    while let Ok(ev) = progress.try_recv() {
        last = Some(ev);
    }
    if let Some(l) = last {
        assert_eq!(l.total_bytes, 98_362_432);
    }

    // Cancellation stops generation within a token or two.
    let cancel = CancellationToken::new();
    let req = ChatRequest::new(vec![Message::user(
        "Write a long story about a dragon and a castle.",
    )]);
    let mut s = p.stream(req, cancel.clone()).await.unwrap();
    let mut got = 0;
    while let Some(ev) = s.next().await {
        if let Ok(LlmEvent::TextDelta(_)) = ev {
            got += 1;
            if got == 3 {
                cancel.cancel();
                break;
            }
        }
    }
    let t = Instant::now();
    let mut last = None;
    while let Some(ev) = s.next().await {
        last = Some(ev);
    }
    assert!(
        matches!(last, Some(Err(LlmError::Cancelled { .. }))),
        "{last:?}"
    );
    assert!(
        t.elapsed() < Duration::from_millis(500),
        "{:?}",
        t.elapsed()
    );
    let stats = p.last_stats().unwrap();
    assert!(
        stats.completion_tokens <= 6,
        "generation went on after cancel: {stats:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn kv_cache_reuse_makes_the_second_turn_cheaper() {
    let p = LocalProvider::new(config(4096), &models_dir());
    let long_system = "You are a helpful assistant for a small bakery. ".repeat(40);
    let mut history = vec![
        Message::system(long_system),
        Message::user("Name one bread."),
    ];
    let (_, c1) = collect(&p, ChatRequest::new(history.clone()))
        .await
        .unwrap();
    let first = p.last_stats().unwrap();
    history.push(Message::assistant(c1.text));
    history.push(Message::user("And one cake?"));
    collect(&p, ChatRequest::new(history)).await.unwrap();
    let second = p.last_stats().unwrap();
    assert!(
        second.reused_tokens as f32 > 0.8 * first.prompt_tokens as f32,
        "{first:?} / {second:?}"
    );
    assert!(
        second.prompt_ms < first.prompt_ms,
        "second turn evaluated its prompt in {} ms, first in {} ms",
        second.prompt_ms,
        first.prompt_ms
    );
    eprintln!(
        "KV reuse: turn 1 prompt {} tokens in {:.1} ms; turn 2 {} tokens ({} reused) in {:.1} ms",
        first.prompt_tokens,
        first.prompt_ms,
        second.prompt_tokens,
        second.reused_tokens,
        second.prompt_ms
    );
}

/// Where the layers go: all on the CPU in a CPU build; in a GPU build
/// with a GPU (`cargo test -p baton-local --features vulkan`; Mesa's
/// lavapipe counts with `GGML_VK_VISIBLE_DEVICES=0`), as many as fit —
/// every layer of this small model — with the answer the CPU gives.
#[tokio::test(flavor = "multi_thread")]
async fn layers_go_to_the_gpu_in_a_gpu_build_with_the_answer_the_cpu_gives() {
    let ask = || ChatRequest::new(vec![Message::user("What is the capital of France?")]);
    let auto = LocalProvider::new(config(2048), &models_dir());
    let (_, on_auto) = collect(&auto, ask()).await.unwrap();
    let layers = auto.last_stats().unwrap().gpu_layers;
    if !baton_local::gpu_offload_available() {
        // A CPU build, or a GPU build on a machine without a GPU.
        assert_eq!(layers, 0);
        return;
    }
    assert!(layers >= 30, "{layers} layers on the GPU"); // SmolLM2-135M has 30
    // The same file under another name gets a worker of its own.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("cpu.gguf");
    let model = models_dir().join("SmolLM2-135M-Instruct.Q4_1.gguf");
    std::fs::hard_link(&model, &file)
        .or_else(|_| std::fs::copy(&model, &file).map(drop))
        .unwrap();
    let mut cfg = config(2048);
    cfg.model_path = Some(file.display().to_string());
    cfg.gpu_layers = Some(0);
    let cpu = LocalProvider::new(cfg, &models_dir());
    let (_, on_cpu) = collect(&cpu, ask()).await.unwrap();
    assert_eq!(cpu.last_stats().unwrap().gpu_layers, 0);
    // Greedy decoding; GPU kernels round differently, so the first words.
    let start = |t: &str| t.split_whitespace().take(4).collect::<Vec<_>>().join(" ");
    assert_eq!(start(&on_auto.text), start(&on_cpu.text));
}

/// The CPU kernels in use: with `cpu-variants`, the module chosen for this
/// processor at run time, which on a processor with AVX2 (and FMA, F16C,
/// BMI2) is one that uses it, and with AVX-512 one that uses that;
/// otherwise the x86-64-v3 kernels compiled in.
#[tokio::test(flavor = "multi_thread")]
async fn the_cpu_kernels_match_the_processor() {
    let p = LocalProvider::new(config(2048), &models_dir());
    let ask = ChatRequest::new(vec![Message::user("What is the capital of France?")]);
    let (_, answer) = collect(&p, ask).await.unwrap();
    assert!(!answer.text.trim().is_empty());
    let kernels = baton_local::cpu_kernels().expect("known once a model is loaded");
    #[cfg(target_arch = "x86_64")]
    check_x86_kernels(kernels);
    #[cfg(not(target_arch = "x86_64"))]
    let _ = kernels;
}

#[cfg(target_arch = "x86_64")]
fn check_x86_kernels(kernels: &str) {
    use std::arch::is_x86_feature_detected as has;
    if !cfg!(feature = "cpu-variants") {
        assert_eq!(kernels, "x86-64-v3 (compiled in)");
        return;
    }
    if std::env::var_os(baton_local::KERNELS_ENV).is_some() {
        return; // chosen by hand
    }
    if has!("avx2") && has!("fma") && has!("f16c") && has!("bmi2") {
        let pre_avx2 = ["x64", "sse42", "sandybridge", "ivybridge", "piledriver"];
        assert!(
            !pre_avx2.contains(&kernels),
            "{kernels} on a processor with AVX2"
        );
    }
    let avx512 = ["avx512f", "avx512cd", "avx512vl", "avx512dq", "avx512bw"];
    if has!("avx512f")
        && has!("avx512cd")
        && has!("avx512vl")
        && has!("avx512dq")
        && has!("avx512bw")
    {
        assert!(
            !["haswell", "alderlake"].contains(&kernels),
            "{kernels} on a processor with {avx512:?}"
        );
    }
}

/// Runs one test of this binary again in a process of its own, with `env`:
/// llama.cpp's CPU kernels are chosen once per process.
#[cfg(feature = "cpu-variants")]
fn in_own_process(test: &str, env: (&str, &str)) -> String {
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact", "--nocapture", "--test-threads=1"])
        .env("BATON_TEST_CHILD", "1")
        .env(env.0, env.1)
        .output()
        .unwrap();
    format!(
        "{}\n-- {} --\n{}",
        String::from_utf8_lossy(&out.stdout),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    )
}

/// `BATON_CPU_KERNELS` picks the kernels (the plain x86-64 ones answer
/// too); a name the build lacks fails the request and says which it has.
#[cfg(all(feature = "cpu-variants", target_arch = "x86_64"))]
#[tokio::test(flavor = "multi_thread")]
async fn named_cpu_kernels_are_used_and_an_unknown_name_is_explained() {
    const NAME: &str = "named_cpu_kernels_are_used_and_an_unknown_name_is_explained";
    if std::env::var_os("BATON_TEST_CHILD").is_some() {
        let p = LocalProvider::new(config(2048), &models_dir());
        let ask = ChatRequest::new(vec![Message::user("What is the capital of France?")]);
        match collect(&p, ask).await {
            Ok((_, c)) => println!("KERNELS {:?} ANSWER {}", baton_local::cpu_kernels(), c.text),
            Err(e) => println!("ERROR {e}"),
        }
        return;
    }
    let out = in_own_process(NAME, (baton_local::KERNELS_ENV, "x64"));
    assert!(out.contains("KERNELS Some(\"x64\") ANSWER "), "{out}");
    let answer = out.split("ANSWER ").nth(1).unwrap_or_default();
    assert!(!answer.trim().is_empty(), "{out}");
    let out = in_own_process(NAME, (baton_local::KERNELS_ENV, "pentium"));
    assert!(out.contains("ERROR "), "{out}");
    assert!(
        out.contains("BATON_CPU_KERNELS=pentium names no CPU kernels of this build"),
        "{out}"
    );
    assert!(out.contains("haswell"), "{out}");
}

/// 30 varied requests a user might make of FileTool.
const PROMPTS: [&str; 30] = [
    "List the files in the reports folder.",
    "What is in /notes/todo.md?",
    "Read the file /reports/q1.txt",
    "Find all PDF files.",
    "Show me what's in my workspace.",
    "Create a file /drafts/hello.txt that says hello world.",
    "Rename /notes/todo.md to /notes/done.md",
    "How big is /reports/q1.txt?",
    "Find every markdown file under /notes.",
    "Write 'meeting at 10' into /notes/meeting.txt",
    "Move /reports/q1.txt into /archive/q1.txt",
    "When was /notes/todo.md last changed?",
    "Open the first 100 characters of /reports/q1.txt",
    "List /archive",
    "Search for files named budget.",
    "Read /notes/ideas.md please",
    "Save a shopping list (milk, eggs) to /lists/shopping.txt",
    "Is /reports a folder?",
    "What files end with .xlsx?",
    "Give me the contents of /readme.txt",
    "Copy the text 'draft v2' into /drafts/v2.md",
    "List the root folder.",
    "Find files matching report*.",
    "Show info about /notes",
    "Read /reports/q2.txt starting at character 10.",
    "Put 'call mom' in /notes/reminders.txt",
    "What's inside the drafts folder?",
    "Look for any .csv files in /data",
    "Rename /drafts/v2.md to /drafts/final.md",
    "Tell me the size of /readme.txt",
];

fn workspace() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    for (p, t) in [
        ("reports/q1.txt", "Q1 up"),
        ("notes/todo.md", "- buy milk"),
        ("readme.txt", "hello"),
    ] {
        let f = d.path().join(p);
        std::fs::create_dir_all(f.parent().unwrap()).unwrap();
        std::fs::write(f, t).unwrap();
    }
    d
}

/// Is `c` a valid reply: an answer, or a call of a known method whose
/// arguments pass validation exactly as sent (no repair, no coercion)?
fn valid_call(catalog: &Catalog, c: &baton_llm::Completion) -> Option<bool> {
    let Some(call) = c.tool_calls.first() else {
        // Only the answer form is allowed besides calls.
        return Some(!c.text.trim().is_empty());
    };
    let Ok((_, method)) = catalog.resolve(&call.name) else {
        return Some(false);
    };
    if call.name != method.name || !call.arguments.is_object() {
        return Some(false);
    }
    let validated = baton_tools::validate::validate(&method.schema, call.arguments.clone()).ok()?;
    // Unchanged except for defaults filled in.
    let sent = call.arguments.as_object().unwrap();
    Some(sent.iter().all(|(k, v)| validated.get(k) == Some(v)))
}

/// What users ask of a workbook.
const SHEET_PROMPTS: [&str; 3] = [
    "Open /budget.xlsx and tell me what is in it.",
    "In /budget.xlsx, put the text Shipping in cell G1 of the Sales sheet.",
    "Add a column for shipping costs to /budget.xlsx: header Shipping in G1, 4.5 in G2.",
];

#[tokio::test(flavor = "multi_thread")]
async fn the_embedded_model_edits_a_workbook_with_grammar_constrained_calls() {
    let dir = workspace();
    let fixture =
        PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/sheets/rich_lo.xlsx");
    std::fs::copy(&fixture, dir.path().join("budget.xlsx")).unwrap();
    let sheets = baton_sheet::SpreadsheetTool::new(Sandbox::new(dir.path()).unwrap());
    // The tools an agent for this chore would be given (agents.json
    // filters): a smaller grammar, so the test stays quick.
    let only = [
        "open",
        "describe_worksheet",
        "get_cell_value",
        "set_cell_value",
        "set_range_values",
        "save",
    ];
    let filter = baton_tools::ToolFilter {
        include: Some(only.iter().map(|s| s.to_string()).collect()),
        exclude: Vec::new(),
    };
    let mut catalog = Catalog::new();
    catalog
        .register_filtered(Arc::new(sheets), &filter)
        .unwrap();
    let tools: Vec<ToolDefinition> = catalog
        .native_tools()
        .into_iter()
        .map(|t| ToolDefinition {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        })
        .collect();
    let model = LocalProvider::new(config(4096), &models_dir());
    let system =
        "You edit the user's spreadsheets with tools. Paths start with /. Sheets: Sales, Notes.";
    let mut done = Vec::new();
    for prompt in SHEET_PROMPTS {
        let req = ChatRequest {
            messages: vec![Message::system(system), Message::user(prompt)],
            tools: tools.clone(),
            ..Default::default()
        };
        let (_, c) = collect(&model, req).await.unwrap();
        assert_eq!(
            valid_call(&catalog, &c),
            Some(true),
            "{prompt}: not a valid call: {c:?}"
        );
        let Some(call) = c.tool_calls.first() else {
            continue;
        };
        let r = catalog.dispatch(&call.name, call.arguments.clone()).await;
        if let baton_tools::ToolOutcome::Err(e) = &r.outcome {
            assert!(
                !e.contains("parameter") && !e.contains("unknown method"),
                "{prompt}: {e}"
            );
        } else {
            done.push(call.name.clone());
        }
    }
    eprintln!("the embedded model's workbook calls that ran: {done:?}");
    // A 135M-parameter model picks poor arguments; what the grammar
    // guarantees is that every call is well-formed (asserted above), and
    // calls reach the workbook.
    assert!(!done.is_empty(), "no call ran on the workbook");
    assert!(
        std::fs::read(dir.path().join("budget.xlsx")).unwrap().len() > 1000,
        "the workbook is still there"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn grammar_constrained_tool_calls_are_always_valid() {
    let dir = workspace();
    let catalog = Catalog::new()
        .with(Arc::new(baton_docs::FileTool::new(
            Sandbox::new(dir.path()).unwrap(),
        )))
        .unwrap();
    let tools: Vec<ToolDefinition> = catalog
        .native_tools()
        .into_iter()
        .map(|t| ToolDefinition {
            name: t.name,
            description: t.description,
            parameters: t.parameters,
        })
        .collect();
    let constrained = LocalProvider::new(config(4096), &models_dir());
    let free = LocalProvider::new(config(4096), &models_dir()).without_grammar();
    let system = "You manage the user's files with tools. Paths start with /.";
    let (mut ok_grammar, mut ok_free, mut calls) = (0, 0, 0);
    for prompt in PROMPTS {
        let req = ChatRequest {
            messages: vec![Message::system(system), Message::user(prompt)],
            tools: tools.clone(),
            ..Default::default()
        };
        let (_, c) = collect(&constrained, req.clone()).await.unwrap();
        let valid = valid_call(&catalog, &c) == Some(true);
        assert!(
            valid,
            "grammar-constrained reply to {prompt:?} is not a valid call: {c:?}"
        );
        ok_grammar += 1;
        if let Some(call) = c.tool_calls.first() {
            calls += 1;
            // It dispatches as sent.
            let r = catalog.dispatch(&call.name, call.arguments.clone()).await;
            if let baton_tools::ToolOutcome::Err(e) = &r.outcome {
                assert!(
                    !e.contains("parameter") && !e.contains("unknown method"),
                    "{prompt}: {e}"
                );
            }
        }
        let (_, f) = collect(&free, req).await.unwrap();
        // Without the grammar the model writes text; count replies that
        // are one valid JSON call or answer object, as sent.
        let parsed = serde_json::from_str::<Value>(f.text.trim()).ok();
        let free_valid = match parsed {
            Some(Value::Object(mut o)) => match o
                .remove("method")
                .and_then(|m| m.as_str().map(str::to_string))
            {
                Some(name) => {
                    valid_call(
                        &catalog,
                        &baton_llm::Completion {
                            text: String::new(),
                            tool_calls: vec![baton_llm::ToolCall {
                                id: "x".into(),
                                name,
                                arguments: Value::Object(o),
                            }],
                            usage: Default::default(),
                            finish: None,
                        },
                    ) == Some(true)
                }
                None => o.get("answer").is_some_and(Value::is_string),
            },
            _ => false,
        };
        if free_valid {
            ok_free += 1;
        }
    }
    eprintln!(
        "tool-call validity over {} prompts: with grammar {ok_grammar}/30 ({calls} calls), without {ok_free}/30",
        PROMPTS.len()
    );
    assert_eq!(ok_grammar, 30);
    assert!(
        calls >= 15,
        "the model should mostly call tools here, made {calls} calls"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_corrupt_model_file_is_named_with_the_fix() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("SmolLM2-135M-Instruct.Q4_1.gguf"),
        b"GGUF but not really a model",
    )
    .unwrap();
    let p = LocalProvider::new(config(1024), dir.path());
    let e = collect(&p, ChatRequest::new(vec![Message::user("hi")]))
        .await
        .unwrap_err();
    let msg = e.to_string();
    assert!(matches!(e, LlmError::Local(_)), "{e:?}");
    assert!(
        msg.contains(
            &dir.path()
                .join("SmolLM2-135M-Instruct.Q4_1.gguf")
                .display()
                .to_string()
        ),
        "{msg}"
    );
    assert!(
        msg.contains("could not be loaded") && msg.contains("make setup"),
        "{msg}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn cli_mode_grammar_allows_only_known_commands() {
    // The `cli` tool as the agent defines it in CLI mode: the pattern names
    // the toolboxes and their commands.
    let commands =
        "list_directory|read_text_file|write_text_file|find_files|move_file|get_file_info";
    let cli = ToolDefinition {
        name: "cli".into(),
        description: "Runs one Baton command line: `<Toolbox> <command> [arguments]`.".into(),
        parameters: json!({"type": "object", "properties": {"command": {"type": "string",
            "pattern": format!("^(FileTool ({commands}))( [^\"\\\\]*)?$")}}, "required": ["command"], "additionalProperties": false}),
    };
    let p = LocalProvider::new(config(2048), &models_dir());
    let mut calls = 0;
    for prompt in [
        "List the reports folder.",
        "Read /notes/todo.md",
        "Find all PDF files.",
        "Delete everything!",
        "Run rm -rf /",
    ] {
        let req = ChatRequest {
            messages: vec![
                Message::system("Use the command line to manage files."),
                Message::user(prompt),
            ],
            tools: vec![cli.clone()],
            ..Default::default()
        };
        let (_, c) = collect(&p, req).await.unwrap();
        if let Some(call) = c.tool_calls.first() {
            assert_eq!(call.name, "cli");
            let cmd = call.arguments["command"].as_str().unwrap();
            let mut words = cmd.split(' ');
            assert_eq!(words.next(), Some("FileTool"), "{prompt}: {cmd}");
            let command = words.next().unwrap_or("");
            assert!(
                commands.split('|').any(|c| c == command),
                "{prompt}: unknown command in {cmd:?}"
            );
            calls += 1;
        } else {
            assert!(!c.text.is_empty(), "{prompt}: neither a call nor an answer");
        }
    }
    assert!(calls >= 3, "only {calls} of 5 replies were commands");
}
