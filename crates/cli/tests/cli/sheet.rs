//! Spreadsheets: `baton ask` edits a workbook through the agent loop and
//! a fresh process reads the saved file.

use std::path::Path;

use baton_scripted_llm::{Reply, ScriptedServer};
use serde_json::{Value, json};

use crate::support::*;

#[tokio::test(flavor = "multi_thread")]
async fn ask_edits_a_workbook_through_the_agent_loop() {
    let server = ScriptedServer::start().await.unwrap();
    let env = Env::new();
    let dir = ws(&env);
    let fixture =
        Path::new(&std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/sheets/rich_lo.xlsx");
    std::fs::copy(&fixture, dir.join("budget.xlsx")).unwrap();
    server.reply(Reply::tool_call(
        "describe_worksheet",
        json!({"path": "/budget.xlsx"}),
    ));
    server.reply(Reply::tool_call(
        "set_range_values",
        json!({"path": "/budget.xlsx", "sheet": "Sales", "range": "G1", "values": [["Shipping"], [4.5], ["=G2*2"]]}),
    ));
    server.reply(Reply::tool_call("save", json!({"path": "/budget.xlsx"})));
    server.reply(Reply::text(
        "Added a Shipping column; the old file is /budget.xlsx.001.bak.",
    ));
    let mut c = env.scripted(&server);
    c.arg("--workspace").arg(&dir).args([
        "ask",
        "--mode",
        "api",
        "--json",
        "Add a shipping column to my budget",
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(o.stdout.trim()).unwrap();
    assert_eq!(v["iterations"], 4, "{v}");
    assert_eq!(
        v["toolCalls"][0]["outcome"]["ok"]["column_types"][0]["header"], "Month",
        "{v}"
    );
    assert_eq!(
        v["toolCalls"][1]["outcome"]["ok"]["changed"], "G1:G3",
        "{v}"
    );
    assert_eq!(
        v["toolCalls"][2]["outcome"]["ok"]["backup"], "/budget.xlsx.001.bak",
        "{v}"
    );
    assert!(dir.join("budget.xlsx.001.bak").exists());
    // A fresh process reads the saved file: the column is there.
    let mut c = env.cmd();
    c.arg("--workspace").arg(&dir).args([
        "tools",
        "call",
        r#"{"method": "get_cell_value", "path": "/budget.xlsx", "sheet": "Sales", "cell": "G3"}"#,
    ]);
    let o = run(c, None).await;
    assert_eq!(o.code, 0, "{}", o.stderr);
    let cell: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(cell["formula"], "=G2*2", "{cell}");
}
