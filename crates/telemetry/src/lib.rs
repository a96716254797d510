//! Traces to an OpenTelemetry collector.
//!
//! When `OTEL_EXPORTER_OTLP_ENDPOINT` (or
//! `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) is set, [`otlp_layer`] gives a
//! `tracing` layer that exports Baton's spans — turns, tools, the
//! orchestrator's `orchestrator.*` stages with their tags — over OTLP/HTTP
//! (protobuf), batched on a thread of its own. The other standard
//! variables (`OTEL_EXPORTER_OTLP_HEADERS`, `OTEL_SERVICE_NAME`, …) apply
//! too. Unset, nothing is exported and nothing is started.

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{SpanExporter, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetryLayer;

/// The variables that turn export on.
pub const ENDPOINT_VARS: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// Why traces cannot be exported.
#[derive(Debug, thiserror::Error)]
#[error("traces cannot be sent to the OpenTelemetry collector: {0}")]
pub struct TelemetryError(String);

/// The layer exporting spans, for a subscriber `S`.
pub type ExportLayer<S> = OpenTelemetryLayer<S, SdkTracer>;

/// Keeps the exporter running; dropping it sends what is left.
pub struct Telemetry {
    provider: SdkTracerProvider,
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        if let Err(e) = self.provider.shutdown() {
            tracing::warn!("the last traces were not sent: {e}");
        }
    }
}

/// What is exported: Baton's own spans (every `baton_*` target) from
/// `info` up, whatever the log filter shows.
pub fn export_filter() -> tracing_subscriber::EnvFilter {
    tracing_subscriber::EnvFilter::new("off,baton=info")
}

/// [`otlp_layer`] filtered by [`export_filter`], ready to add to a
/// registry, and what keeps it running.
pub fn export_layer<S>(
    service: &'static str,
) -> Result<Option<(FilteredExport<S>, Telemetry)>, TelemetryError>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use tracing_subscriber::Layer;
    Ok(otlp_layer(service)?.map(|(layer, guard)| (layer.with_filter(export_filter()), guard)))
}

/// The layer [`export_layer`] gives.
pub type FilteredExport<S> =
    tracing_subscriber::filter::Filtered<ExportLayer<S>, tracing_subscriber::EnvFilter, S>;

/// Whether an endpoint is set.
pub fn enabled() -> bool {
    ENDPOINT_VARS
        .iter()
        .any(|v| std::env::var(v).is_ok_and(|s| !s.trim().is_empty()))
}

/// A layer exporting spans as `service` (unless `OTEL_SERVICE_NAME`
/// names it), and what keeps it running; `None` when no endpoint is set.
/// Call it before any async runtime starts (the exporter's HTTP client
/// blocks on a thread of its own).
pub fn otlp_layer<S>(
    service: &'static str,
) -> Result<Option<(ExportLayer<S>, Telemetry)>, TelemetryError>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    if !enabled() {
        return Ok(None);
    }
    // reqwest's TLS needs a process-wide provider (ring, as everywhere in
    // Baton); installing it twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let exporter = SpanExporter::builder()
        .with_http()
        .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
        .build()
        .map_err(|e| TelemetryError(e.to_string()))?;
    let name = std::env::var("OTEL_SERVICE_NAME").unwrap_or_else(|_| service.to_string());
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(Resource::builder().with_service_name(name).build())
        .build();
    let layer = tracing_opentelemetry::layer().with_tracer(provider.tracer("baton"));
    Ok(Some((layer, Telemetry { provider })))
}
