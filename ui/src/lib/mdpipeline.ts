// The Markdown pipeline as one lazily loaded chunk: marked, DOMPurify,
// highlight.js (+ languages), the render cache and the Markdown CSS. Never
// import this statically from the first-paint code; go through `mdload.ts`.
import './markdown.css';

export { IncrementalMarkdown, renderMarkdown, sanitize, warmUp } from './markdown';
export { cachedHtml, remember } from './mdcache';
