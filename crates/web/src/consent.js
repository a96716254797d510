// Dismisses cookie-consent banners before a page is read: the common
// consent frameworks' reject/accept buttons first, then buttons whose text
// says so in English, German, French, Spanish or Dutch. Returns how many
// it clicked.
(() => {
  const FRAMEWORKS = ["#onetrust-reject-all-handler", "#onetrust-accept-btn-handler",
    "#CybotCookiebotDialogBodyButtonDecline", "#CybotCookiebotDialogBodyLevelButtonLevelOptinAllowAll",
    ".didomi-continue-without-agreeing", "#didomi-notice-disagree-button", "#didomi-notice-agree-button",
    ".qc-cmp2-summary-buttons button[mode='secondary']", ".cc-deny", ".cc-dismiss", ".cc-allow",
    "#truste-consent-required", "#truste-consent-button", ".osano-cm-denyAll", ".osano-cm-accept-all",
    "[data-testid='uc-deny-all-button']", "[data-testid='uc-accept-all-button']"];
  const WORDS = [/^(reject|decline|refuse) (all|optional|non-essential)/, /^only (necessary|essential)/,
    /^(accept|allow|agree)( all)?( cookies)?$/, /^i (agree|accept)$/, /^got it$/, /^ok(ay)?$/,
    /^(alle )?(ablehnen|akzeptieren)$/, /^(nur notwendige|alle cookies akzeptieren|zustimmen)/,
    /^(tout )?(refuser|accepter)( tout)?$/, /^(rechazar|aceptar)( todo| todas)?/,
    /^(alles )?(weigeren|accepteren)$/, /^(akkoord|accepteer)/];
  let n = 0;
  const visible = (el) => el && el.offsetParent !== null && el.getClientRects().length > 0;
  for (const sel of FRAMEWORKS) {
    const el = document.querySelector(sel);
    if (visible(el)) { el.click(); n++; break; }
  }
  if (n) return n;
  const banner = (el) => {
    for (let p = el; p && p !== document.body; p = p.parentElement) {
      const id = (p.id + " " + p.className + " " + (p.getAttribute("aria-label") || "")).toLowerCase();
      if (/cookie|consent|gdpr|privacy|cmp/.test(id)) return true;
    }
    return false;
  };
  for (const el of document.querySelectorAll("button, [role=button], a[href='#'], input[type=button], input[type=submit]")) {
    const t = (el.innerText || el.value || "").replace(/\s+/g, " ").trim().toLowerCase();
    if (t.length > 40 || !visible(el) || !banner(el)) continue;
    if (WORDS.some((w) => w.test(t))) { el.click(); n++; break; }
  }
  return n;
})()
