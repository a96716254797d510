//! Which `Host` a network door (the HTTP API, the MCP server) answers to,
//! against DNS rebinding: a web page re-points its own name at 127.0.0.1
//! and then calls Baton as if it were that site. The browser still sends
//! the page's name as `Host`, so a door that answers only names it knows
//! is out of the page's reach.

/// The names a door answers to: this computer's (`localhost`, loopback
/// addresses) always; once callers need a key, also any IP address (an
/// address names no site, so it cannot be re-pointed) and the names the
/// user configured (`--host-name`, the `server.hostNames` setting).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HostNames {
    names: Vec<String>,
}

impl HostNames {
    /// This computer's names, and `names` besides (any case, with or
    /// without a final dot).
    pub fn new<S: AsRef<str>>(names: impl IntoIterator<Item = S>) -> HostNames {
        HostNames {
            names: names
                .into_iter()
                .map(|n| normal(n.as_ref()))
                .filter(|n| !n.is_empty())
                .collect(),
        }
    }

    /// Why a request addressed to `host` (a `Host` header value, port and
    /// all; `None`: none sent) is refused, or `None` when it is answered.
    /// `keyed`: the door asks callers for a key.
    pub fn refusal(&self, host: Option<&str>, keyed: bool) -> Option<String> {
        let shown = host.unwrap_or_default();
        let name = normal(host_of(shown));
        if is_this_computer(&name) {
            return None;
        }
        if !keyed {
            return Some(format!(
                "`Host: {shown}` is not this computer: without a key, Baton answers requests addressed to localhost or 127.0.0.1 only"
            ));
        }
        let address = name.parse::<std::net::IpAddr>().is_ok();
        (!address && !self.names.contains(&name)).then(|| format!(
            "`Host: {shown}` is not a name this server answers to: address it by IP, or add the name with --host-name (the `server.hostNames` setting)"
        ))
    }
}

/// `name` as a name others reach a door by (`baton.lan`), in the form the
/// checks compare (lower-case, no final dot), or why it is not one.
pub fn host_name(name: &str) -> Result<String, String> {
    let name = normal(name);
    let label_ok = |l: &str| {
        !l.is_empty() && l.len() <= 63 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'-')
    };
    if name.is_empty() || !name.split('.').all(label_ok) {
        return Err(format!(
            "`{name}` is not a host name such as baton.lan (letters, digits, `-` and dots)"
        ));
    }
    Ok(name)
}

/// Whether `host` (a `Host` or `Origin` host, without its port) names this
/// computer: `localhost` or a loopback address.
pub fn is_this_computer(host: &str) -> bool {
    let host = normal(host);
    host == "localhost"
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// The host of a `Host` header value (`127.0.0.1:8080`, `[::1]:8080`).
pub fn host_of(value: &str) -> &str {
    match value.rsplit_once(':') {
        Some((host, port)) if !port.contains(']') && port.bytes().all(|b| b.is_ascii_digit()) => {
            host
        }
        _ => value,
    }
}

/// `host` lower-cased, without IPv6 brackets or a final dot.
fn normal(host: &str) -> String {
    host.trim()
        .trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_key_only_this_computer_is_answered() {
        let names = HostNames::new(["baton.lan"]);
        for ok in [
            "127.0.0.1:8080",
            "localhost:1",
            "LOCALHOST.",
            "[::1]:80",
            "127.0.0.2",
        ] {
            assert_eq!(names.refusal(Some(ok), false), None, "{ok}");
        }
        for refused in ["rebind.example:8080", "baton.lan", "192.168.1.5:8080", ""] {
            assert!(names.refusal(Some(refused), false).is_some(), "{refused}");
        }
        assert!(names.refusal(None, false).is_some());
    }

    #[test]
    fn with_a_key_addresses_and_configured_names_are_answered_too() {
        let names = HostNames::new(["Baton.LAN."]);
        for ok in [
            "127.0.0.1:8080",
            "192.168.1.5:8080",
            "[fe80::1]:80",
            "baton.lan:8080",
            "BATON.lan.",
        ] {
            assert_eq!(names.refusal(Some(ok), true), None, "{ok}");
        }
        for refused in ["rebind.example:8080", "baton.lan.evil.example", "lan", ""] {
            let why = names.refusal(Some(refused), true).unwrap();
            assert!(why.contains("--host-name"), "{why}");
        }
    }
}
