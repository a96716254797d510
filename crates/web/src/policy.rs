//! Which addresses the browser toolbox may open: http and https only
//! (unless other schemes are allowed in settings), and the user's allowed
//! and blocked sites.

use baton_config::BrowserSettings;

/// The sites and schemes the toolbox may open.
#[derive(Debug, Clone, Default)]
pub struct SitePolicy {
    allowed: Vec<String>,
    blocked: Vec<String>,
    other_schemes: bool,
}

impl SitePolicy {
    /// The policy of `settings`.
    pub fn from_settings(settings: &BrowserSettings) -> Self {
        let norm = |v: &[String]| {
            v.iter()
                .map(|s| s.trim().trim_start_matches("*.").to_ascii_lowercase())
                .filter(|s| !s.is_empty())
                .collect()
        };
        Self {
            allowed: norm(&settings.allowed_sites),
            blocked: norm(&settings.blocked_sites),
            other_schemes: settings.allow_other_schemes,
        }
    }

    /// `url` checked: `Err` says why it is refused.
    pub fn check(&self, url: &str) -> Result<(), String> {
        let (scheme, rest) = url
            .split_once("://")
            .map(|(s, r)| (s.to_ascii_lowercase(), r))
            .unwrap_or_else(|| (url.split(':').next().unwrap_or("").to_ascii_lowercase(), ""));
        if scheme == "about" && url.eq_ignore_ascii_case("about:blank") {
            return Ok(());
        }
        if scheme != "http" && scheme != "https" {
            if self.other_schemes {
                return Ok(());
            }
            return Err(format!(
                "`{url}`: Baton opens http and https pages only ({scheme}: is turned off; `baton config set browser.allowOtherSchemes true` allows it)"
            ));
        }
        let host = host_of(rest);
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
        Ok(())
    }
}

/// The host of the part of a URL after `scheme://`.
fn host_of(rest: &str) -> String {
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = authority.rsplit('@').next().unwrap_or("");
    let host = if host.starts_with('[') {
        host.split(']')
            .next()
            .map(|h| format!("{h}]"))
            .unwrap_or_default()
    } else {
        host.split(':').next().unwrap_or("").to_string()
    };
    host.to_ascii_lowercase()
}

/// `host` is `site` or one of its subdomains.
fn matches_site(host: &str, site: &str) -> bool {
    host == site || host.ends_with(&format!(".{site}"))
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
}
