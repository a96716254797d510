//! `Overrides::from_lookup`: what `BATON_WORKSPACE` and `BATON_PROVIDERS`
//! mean to every front door.

use std::ffi::OsString;
use std::path::PathBuf;

use baton_engine::{ENV_PROVIDERS, ENV_WORKSPACE, Overrides};

fn lookup(vars: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |k| {
        vars.iter()
            .find(|(name, _)| name == k)
            .map(|(_, v)| OsString::from(v))
    }
}

#[test]
fn reads_workspace_and_providers() {
    let o = Overrides::from_lookup(lookup(&[
        ("BATON_WORKSPACE", "/docs"),
        ("BATON_PROVIDERS", "/etc/providers.json"),
    ]));
    assert_eq!(o.workspace, Some(PathBuf::from("/docs")));
    assert_eq!(o.providers, Some(PathBuf::from("/etc/providers.json")));
    assert_eq!(o.shipped_dir, None);
    assert_eq!(
        (ENV_WORKSPACE, ENV_PROVIDERS),
        ("BATON_WORKSPACE", "BATON_PROVIDERS")
    );
}

#[test]
fn empty_or_missing_means_unset() {
    let o = Overrides::from_lookup(lookup(&[("BATON_WORKSPACE", "")]));
    assert_eq!(o.workspace, None);
    assert_eq!(o.providers, None);
    let o = Overrides::from_lookup(lookup(&[("BATON_PROVIDERS", "p.json")]));
    assert_eq!(o.workspace, None);
    assert_eq!(o.providers, Some(PathBuf::from("p.json")));
}
