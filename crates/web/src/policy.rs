//! Which addresses the browser toolbox may open: http and https only
//! (unless other schemes are allowed in settings), and the user's allowed
//! and blocked sites. Addresses are parsed as the browser parses them (the
//! WHATWG URL Standard, by the `url` crate): a backslash is a slash, the
//! host is IDNA-mapped and percent-decoded, a trailing dot is the same
//! host, and `user:pass@` is not part of it, so what is checked is where
//! the browser really goes.

use baton_config::BrowserSettings;
use url::{Host, Url};

/// The sites and schemes the toolbox may open.
#[derive(Debug, Clone, Default)]
pub struct SitePolicy {
    allowed: Vec<String>,
    blocked: Vec<String>,
    other_schemes: bool,
}

impl SitePolicy {
    /// The policy of `settings` (an entry that names no host is skipped).
    pub fn from_settings(settings: &BrowserSettings) -> Self {
        let norm = |v: &[String]| v.iter().filter_map(|s| site_host(s)).collect();
        Self {
            allowed: norm(&settings.allowed_sites),
            blocked: norm(&settings.blocked_sites),
            other_schemes: settings.allow_other_schemes,
        }
    }

    /// `url` checked: the address as the browser reads it (what to open,
    /// so that the host checked is the host opened), or why it is
    /// refused.
    pub fn check(&self, url: &str) -> Result<String, String> {
        let parsed = Url::parse(url.trim())
            .map_err(|e| format!("`{url}` is not a web address Baton can open ({e})"))?;
        let scheme = parsed.scheme();
        if parsed.as_str() == "about:blank" {
            return Ok(parsed.into());
        }
        if scheme != "http" && scheme != "https" {
            if self.other_schemes {
                return Ok(parsed.into());
            }
            return Err(format!(
                "`{url}`: Baton opens http and https pages only ({scheme}: is turned off; `baton config set browser.allowOtherSchemes true` allows it)"
            ));
        }
        let host = parsed.host().map(canonical).unwrap_or_default();
        if self.blocked.iter().any(|b| matches_site(&host, b)) {
            return Err(format!(
                "`{host}` is in your blocked sites (browser.blockedSites)"
            ));
        }
        if !self.allowed.is_empty() && !self.allowed.iter().any(|a| matches_site(&host, a)) {
            return Err(format!(
                "`{host}` is not in your allowed sites (browser.allowedSites: {})",
                self.allowed.join(", ")
            ));
        }
        Ok(parsed.into())
    }
}

/// A host as the policy compares it: lowercase ASCII (IDNA), no trailing
/// dot; IPv6 in brackets.
fn canonical(host: Host<&str>) -> String {
    match host {
        Host::Domain(d) => d.trim_end_matches('.').to_string(),
        Host::Ipv4(ip) => ip.to_string(),
        Host::Ipv6(ip) => format!("[{ip}]"),
    }
}

/// The host a settings entry names: `example.com`, `*.example.com`,
/// `https://example.com/path` or `[::1]`, parsed like an address.
fn site_host(entry: &str) -> Option<String> {
    let entry = entry.trim().trim_start_matches("*.");
    if entry.is_empty() {
        return None;
    }
    let url = match entry.contains("://") {
        true => Url::parse(entry),
        false => Url::parse(&format!("http://{entry}/")),
    };
    url.ok()?.host().map(canonical).filter(|h| !h.is_empty())
}

/// `host` is `site` or, for a domain, one of its subdomains.
fn matches_site(host: &str, site: &str) -> bool {
    let domain = !site.starts_with('[') && site.parse::<std::net::Ipv4Addr>().is_err();
    host == site || (domain && host.ends_with(&format!(".{site}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(allowed: &[&str], blocked: &[&str]) -> SitePolicy {
        let s = BrowserSettings {
            allowed_sites: allowed.iter().map(|s| s.to_string()).collect(),
            blocked_sites: blocked.iter().map(|s| s.to_string()).collect(),
            ..Default::default()
        };
        SitePolicy::from_settings(&s)
    }

    #[test]
    fn schemes_other_than_http_are_refused_unless_allowed() {
        let p = policy(&[], &[]);
        assert!(p.check("https://example.com/a").is_ok());
        assert!(p.check("about:blank").is_ok());
        for bad in [
            "file:///etc/passwd",
            "chrome://settings",
            "edge://flags",
            "javascript:alert(1)",
        ] {
            let e = p.check(bad).unwrap_err();
            assert!(e.contains("http and https pages only"), "{bad}: {e}");
        }
        let open = SitePolicy {
            other_schemes: true,
            ..SitePolicy::default()
        };
        assert!(open.check("file:///tmp/x.html").is_ok());
        assert!(
            p.check("not a url")
                .unwrap_err()
                .contains("not a web address")
        );
    }

    #[test]
    fn allowed_and_blocked_sites_match_subdomains() {
        let p = policy(&["example.com"], &["ads.example.com"]);
        assert!(p.check("https://shop.example.com/cart").is_ok());
        assert!(p.check("https://user:pw@example.com:8443/").is_ok());
        assert!(
            p.check("https://ads.example.com/x")
                .unwrap_err()
                .contains("blocked")
        );
        assert!(
            p.check("https://badexample.com/")
                .unwrap_err()
                .contains("not in your allowed")
        );
        assert!(
            policy(&[], &["*.tracker.net"])
                .check("http://a.tracker.net")
                .is_err()
        );
    }

    /// Addresses written to make a hand-made parser see another host than
    /// the browser does, each with the host Chromium goes to (the same
    /// table is checked against Chromium's own parser in
    /// tests/url_policy.rs).
    fn tricky() -> Vec<(String, String)> {
        let rows: Vec<serde_json::Value> =
            serde_json::from_str(include_str!("../tests/tricky_urls.json")).unwrap();
        rows.iter()
            .map(|r| {
                (
                    r["url"].as_str().unwrap().into(),
                    r["host"].as_str().unwrap().into(),
                )
            })
            .collect()
    }

    #[test]
    fn the_host_checked_is_the_host_the_browser_goes_to() {
        let rows = tricky();
        assert!(rows.len() >= 20);
        for (url, host) in &rows {
            let parsed = Url::parse(url.trim()).unwrap();
            assert_eq!(&parsed.host().map(canonical).unwrap(), host, "{url}");
        }
        let p = policy(&["allowed.example"], &["blocked.example", "127.0.0.1"]);
        for (url, host) in &rows {
            let verdict = p.check(url);
            let allowed = host == "allowed.example";
            assert_eq!(
                verdict.is_ok(),
                allowed,
                "{url} goes to {host}: {verdict:?}"
            );
        }
        assert_eq!(
            p.check("https://evil.example\\@allowed.example/")
                .unwrap_err(),
            "`evil.example` is not in your allowed sites (browser.allowedSites: allowed.example)"
        );
        assert_eq!(
            p.check(" https://Allowed.Example./a b").unwrap(),
            "https://allowed.example./a%20b"
        );
        let open = policy(&[], &["blocked.example."]);
        assert!(open.check("https://blocked.example/").is_err());
        assert!(open.check("https://notblocked.example/").is_ok());
    }
}
