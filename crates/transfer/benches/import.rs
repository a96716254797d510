//! Importing a large ChatGPT export: 2,000 conversations of 12 messages
//! (made here in ChatGPT's published shape), read and written as Baton
//! sessions with their dates, as `baton import` does; against parsing the
//! same JSON alone, in the same process. Prints human lines and one JSON
//! line. `cargo bench -p baton-transfer --bench import`.

use std::time::Instant;

use baton_agent::SessionStore;
use serde_json::{Value, json};

fn conversation(i: usize) -> Value {
    let mut mapping = serde_json::Map::new();
    mapping.insert(
        "root".into(),
        json!({"id": "root", "parent": null, "children": ["n0"], "message": null}),
    );
    for k in 0..12 {
        let (id, parent) = (
            format!("n{k}"),
            if k == 0 {
                "root".to_string()
            } else {
                format!("n{}", k - 1)
            },
        );
        let children: Vec<String> = if k < 11 {
            vec![format!("n{}", k + 1)]
        } else {
            Vec::new()
        };
        let role = if k % 2 == 0 { "user" } else { "assistant" };
        let text = format!(
            "Message {k} of conversation {i}: {}",
            "some words about the budget and the trip ".repeat(6)
        );
        mapping.insert(
            id.clone(),
            json!({"id": id, "parent": parent, "children": children,
            "message": {"id": id, "author": {"role": role}, "create_time": 1.7e9,
                        "content": {"content_type": "text", "parts": [text]}}}),
        );
    }
    json!({"title": format!("Conversation {i}"), "create_time": 1.7e9, "update_time": 1.7e9 + i as f64,
           "conversation_id": format!("c{i:06}-0000-4000-8000-000000000000"), "current_node": "n11",
           "mapping": mapping})
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let export: Vec<Value> = (0..2000).map(conversation).collect();
    let bytes = serde_json::to_vec(&export).unwrap();
    let t = Instant::now();
    let parsed: Value = serde_json::from_slice(&bytes).unwrap();
    let parse = t.elapsed().as_secs_f64();
    drop(parsed);
    let dir = tempfile::tempdir().unwrap();
    let store = SessionStore::new(dir.path());
    let t = Instant::now();
    let read = baton_transfer::read_export(&bytes).unwrap();
    for d in &read.sessions {
        let path = store.save(&d.session).unwrap();
        let file = std::fs::File::options().write(true).open(path).unwrap();
        file.set_modified(d.when()).unwrap();
    }
    let import = t.elapsed().as_secs_f64();
    println!(
        "import of a ChatGPT export: 2,000 conversations ({:.1} MB) in {import:.2} s (goal < 30 s); parsing the JSON alone {parse:.2} s ({:.1}x)",
        bytes.len() as f64 / 1e6,
        import / parse.max(1e-9)
    );
    println!("{{\"import_2000_secs\": {import:.3}, \"parse_only_secs\": {parse:.3}}}");
}
