//! The site policy's parser against Chromium's own: each tricky address in
//! tricky_urls.json is parsed by `new URL` in Debian's Chromium (headless),
//! and the host it goes to must be the host the table (and the policy,
//! whose unit tests use the same table) says.

use std::process::Command;

const CHROMIUM: &str = "/usr/bin/chromium";

/// What Chromium's `new URL(u).hostname` says for each address, in order.
fn chromium_hosts(urls: &[String]) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("parse.html");
    let list = serde_json::to_string(urls).unwrap();
    let html = format!(
        "<!doctype html><meta charset=utf-8><body><script>\
         const urls = {list};\
         document.body.textContent = '@@' + JSON.stringify(urls.map(u => {{\
           try {{ return new URL(u).hostname; }} catch (e) {{ return 'ERROR'; }} }})) + '@@';\
         </script></body>"
    );
    std::fs::write(&page, html).unwrap();
    let out = Command::new(CHROMIUM)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
        ])
        .arg(format!(
            "--user-data-dir={}",
            dir.path().join("profile").display()
        ))
        .arg("--dump-dom")
        .arg(format!("file://{}", page.display()))
        .output()
        .expect("Debian's chromium is installed (scripts/setup.sh)");
    let dom = String::from_utf8_lossy(&out.stdout);
    let json = dom
        .split("@@")
        .nth(1)
        .unwrap_or_else(|| panic!("no result in Chromium's DOM: {dom}"));
    let json = json
        .replace("&amp;", "&")
        .replace("&lt;", "<")
        .replace("&gt;", ">");
    serde_json::from_str(&json).unwrap()
}

#[test]
fn the_policy_sees_the_host_chromium_goes_to() {
    let rows: Vec<serde_json::Value> =
        serde_json::from_str(include_str!("tricky_urls.json")).unwrap();
    let urls: Vec<String> = rows
        .iter()
        .map(|r| r["url"].as_str().unwrap().to_string())
        .collect();
    let hosts = chromium_hosts(&urls);
    assert_eq!(hosts.len(), rows.len());
    for (row, chromium) in rows.iter().zip(&hosts) {
        // Chromium keeps a trailing dot; the policy compares without it.
        let chromium = chromium.trim_end_matches('.');
        assert_eq!(chromium, row["host"].as_str().unwrap(), "{}", row["url"]);
    }
}
