//! The TLS settings both protocols use: the system's certificate
//! authorities (`SSL_CERT_FILE`/`SSL_CERT_DIR` honoured) plus the
//! server's `caFile`, with the ring provider.

use std::path::Path;
use std::sync::Arc;

use rustls::pki_types::CertificateDer;
use rustls::pki_types::pem::PemObject;

use crate::MailError;

/// Reads the extra certificate authority file, if any.
pub(crate) fn extra_roots(
    server: &'static str,
    ca_file: Option<&Path>,
) -> Result<Vec<CertificateDer<'static>>, MailError> {
    let Some(path) = ca_file else {
        return Ok(Vec::new());
    };
    let bad = |reason: String| {
        MailError::invalid(format!(
            "`{server}.caFile` ({}) could not be used: {reason}",
            path.display()
        ))
    };
    let pem = std::fs::read(path).map_err(|e| bad(e.to_string()))?;
    let certs = CertificateDer::pem_slice_iter(&pem)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(e.to_string()))?;
    if certs.is_empty() {
        return Err(bad("it holds no PEM certificate".into()));
    }
    Ok(certs)
}

/// A rustls client configuration trusting the system's authorities and
/// `extra`.
pub(crate) fn client_config(
    extra: Vec<CertificateDer<'static>>,
) -> Result<Arc<rustls::ClientConfig>, MailError> {
    let mut roots = rustls::RootCertStore::empty();
    roots.add_parsable_certificates(rustls_native_certs::load_native_certs().certs);
    roots.add_parsable_certificates(extra);
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| MailError::invalid(format!("TLS could not be set up: {e}")))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

/// The plain words for a failed TLS handshake (an unknown authority, a
/// name that does not match, …), found inside an I/O error.
pub(crate) fn describe(e: &std::io::Error) -> String {
    match e.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
        Some(rustls::Error::InvalidCertificate(c)) => format!(
            "its certificate is not trusted ({c:?}); if it is your organisation's own, set `caFile` to its authority's PEM file"
        ),
        Some(other) => other.to_string(),
        None => e.to_string(),
    }
}
