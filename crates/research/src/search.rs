//! Search APIs: SearXNG (the user's own instance, no key), Brave and
//! Tavily (with the user's key).

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Value, json};

use crate::{Hit, Searcher};

/// How long a search may take.
const SEARCH_TIMEOUT: Duration = Duration::from_secs(30);
const BRAVE: &str = "https://api.search.brave.com/res/v1/web/search";
const TAVILY: &str = "https://api.tavily.com/search";

/// A search API and what it needs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchService {
    /// A SearXNG instance (its JSON output must be on: `search.formats`
    /// with `json` in its settings).
    Searxng {
        /// Its address, e.g. `http://localhost:8888`.
        url: String,
    },
    /// Brave Search's API.
    Brave {
        /// The subscription key.
        key: String,
    },
    /// Tavily's search API.
    Tavily {
        /// The API key.
        key: String,
    },
}

impl SearchService {
    /// Its name for messages.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Searxng { .. } => "SearXNG",
            Self::Brave { .. } => "Brave Search",
            Self::Tavily { .. } => "Tavily",
        }
    }
}

/// A [`Searcher`] over a search API.
pub struct SearchApi {
    service: SearchService,
    /// Where Brave's or Tavily's requests go (their public address, or a
    /// test's server).
    endpoint: String,
    client: reqwest::Client,
}

impl SearchApi {
    /// A searcher for `service`.
    pub fn new(service: SearchService) -> Self {
        let endpoint = match &service {
            SearchService::Searxng { url } => format!("{}/search", url.trim_end_matches('/')),
            SearchService::Brave { .. } => BRAVE.into(),
            SearchService::Tavily { .. } => TAVILY.into(),
        };
        let _ = rustls::crypto::ring::default_provider().install_default();
        let client = reqwest::Client::builder()
            .user_agent(concat!("baton/", env!("CARGO_PKG_VERSION")))
            .timeout(SEARCH_TIMEOUT)
            .build()
            .unwrap_or_default();
        Self {
            service,
            endpoint,
            client,
        }
    }

    #[cfg(test)]
    fn at(service: SearchService, endpoint: String) -> Self {
        Self {
            endpoint,
            ..Self::new(service)
        }
    }

    /// The endpoint's address with `pairs` as its query.
    fn with_query(&self, pairs: &[(&str, &str)]) -> Result<url::Url, String> {
        let mut url = url::Url::parse(&self.endpoint)
            .map_err(|e| format!("{} is not an address: {e}", self.endpoint))?;
        url.query_pairs_mut().extend_pairs(pairs);
        Ok(url)
    }

    /// The request for `query`.
    fn request(&self, query: &str, max: usize) -> Result<reqwest::RequestBuilder, String> {
        let count = max.clamp(1, 20).to_string();
        Ok(match &self.service {
            SearchService::Searxng { .. } => self
                .client
                .get(self.with_query(&[("q", query), ("format", "json")])?),
            SearchService::Brave { key } => self
                .client
                .get(self.with_query(&[("q", query), ("count", &count)])?)
                .header("X-Subscription-Token", key)
                .header("Accept", "application/json"),
            SearchService::Tavily { key } => self
                .client
                .post(&self.endpoint)
                .bearer_auth(key)
                .json(&json!({"query": query, "max_results": max.clamp(1, 20)})),
        })
    }

    /// The results in the service's answer.
    fn hits(&self, body: &Value) -> Vec<Hit> {
        let (list, snippet) = match self.service {
            SearchService::Searxng { .. } => (&body["results"], "content"),
            SearchService::Brave { .. } => (&body["web"]["results"], "description"),
            SearchService::Tavily { .. } => (&body["results"], "content"),
        };
        list.as_array()
            .into_iter()
            .flatten()
            .filter_map(|r| {
                let url = r["url"].as_str()?;
                url.starts_with("http").then(|| Hit {
                    title: r["title"].as_str().unwrap_or(url).to_string(),
                    url: url.to_string(),
                    snippet: r[snippet].as_str().unwrap_or_default().to_string(),
                })
            })
            .collect()
    }

    async fn search_now(&self, query: &str, max: usize) -> Result<Vec<Hit>, String> {
        let name = self.service.name();
        let response = self
            .request(query, max)?
            .send()
            .await
            .map_err(|e| format!("{name} could not be reached: {e}"))?;
        let status = response.status();
        if status == reqwest::StatusCode::UNAUTHORIZED || status == reqwest::StatusCode::FORBIDDEN {
            return Err(format!(
                "{name} refused the key ({status}); check it in Settings"
            ));
        }
        if !status.is_success() {
            return Err(format!("{name} answered {status}"));
        }
        let body: Value = response
            .json()
            .await
            .map_err(|e| format!("{name} did not answer with JSON results: {e}"))?;
        let mut hits = self.hits(&body);
        hits.truncate(max);
        Ok(hits)
    }
}

impl Searcher for SearchApi {
    fn search<'a>(&'a self, query: &'a str, max: usize) -> BoxFuture<'a, Result<Vec<Hit>, String>> {
        Box::pin(self.search_now(query, max))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::extract::RawQuery;
    use axum::http::HeaderMap;
    use axum::routing::{get, post};

    /// A server answering as each service does; it checks the key.
    async fn services() -> String {
        let app = axum::Router::new()
            .route(
                "/search",
                get(|q: RawQuery| async move {
                    let q = q.0.unwrap_or_default();
                    assert!(q.contains("format=json"), "{q}");
                    axum::Json(json!({"results": [
                        {"url": "http://a.test/1", "title": "A", "content": "about a"},
                        {"url": "javascript:alert(1)", "title": "no"},
                        {"url": "http://a.test/2", "title": "B"}]}))
                }),
            )
            .route(
                "/brave",
                get(|h: HeaderMap| async move {
                    if h.get("x-subscription-token").is_none_or(|v| v != "bk") {
                        return Err(axum::http::StatusCode::UNAUTHORIZED);
                    }
                    Ok(axum::Json(json!({"web": {"results": [
                        {"url": "http://b.test/", "title": "Brave hit", "description": "d"}]}})))
                }),
            )
            .route(
                "/tavily",
                post(|h: HeaderMap, body: axum::Json<Value>| async move {
                    assert_eq!(h["authorization"], "Bearer tk");
                    assert_eq!(body["query"], "velmar");
                    axum::Json(json!({"results": [
                        {"url": "http://t.test/", "title": "Tavily hit", "content": "c"}]}))
                }),
            );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
        format!("http://{addr}")
    }

    #[tokio::test]
    async fn each_service_is_asked_in_its_own_way_and_read() {
        let base = services().await;
        let searx = SearchApi::new(SearchService::Searxng {
            url: format!("{base}/"),
        });
        let hits = searx.search("velmar", 5).await.unwrap();
        let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
        assert_eq!(urls, ["http://a.test/1", "http://a.test/2"]);
        assert_eq!(hits[0].snippet, "about a");
        assert_eq!(searx.search("velmar", 1).await.unwrap().len(), 1);

        let brave = SearchApi::at(
            SearchService::Brave { key: "bk".into() },
            format!("{base}/brave"),
        );
        assert_eq!(
            brave.search("velmar", 5).await.unwrap()[0].title,
            "Brave hit"
        );
        let wrong = SearchApi::at(
            SearchService::Brave { key: "no".into() },
            format!("{base}/brave"),
        );
        let why = wrong.search("velmar", 5).await.unwrap_err();
        assert!(why.contains("Brave Search refused the key"), "{why}");

        let tavily = SearchApi::at(
            SearchService::Tavily { key: "tk".into() },
            format!("{base}/tavily"),
        );
        assert_eq!(
            tavily.search("velmar", 5).await.unwrap()[0].url,
            "http://t.test/"
        );

        let gone = SearchApi::new(SearchService::Searxng {
            url: "http://127.0.0.1:9".into(),
        });
        let why = gone.search("velmar", 5).await.unwrap_err();
        assert!(why.starts_with("SearXNG could not be reached"), "{why}");
    }
}
