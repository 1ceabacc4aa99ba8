import type { AuthorizeRequest } from './authorize-request';

const HTML_ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Escapes text for HTML content and quoted attribute values. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (ch) => HTML_ESCAPES[ch] ?? ch);
}

/** Field names of the login form, shared by the page and the handler that reads the post. */
export const LOGIN_FORM = {
  transaction: 'txn',
  username: 'username',
  password: 'password',
  decision: 'decision',
  approve: 'approve',
  deny: 'deny',
} as const;

const SCOPE_TEXT: Record<string, string> = {
  openid: 'Know who you are',
  offline_access: 'Stay connected when you are not signed in (refresh token)',
  onboarding: 'Read reports and manage contact directories',
  profile: 'Read your profile',
};

interface LoginPageModel {
  transactionId: string;
  request: AuthorizeRequest;
  /** Shown above the form after a failed attempt. */
  error?: string;
  /** Prefilled after a failed attempt. */
  username?: string;
}

/** The login and consent page: one form, sign in and allow, or deny. */
export function renderLoginPage(model: LoginPageModel): string {
  const { request } = model;
  const e = escapeHtml;
  const scopes = request.scope
    .split(' ')
    .map((s) => `<li><code>${e(s)}</code> ${e(SCOPE_TEXT[s] ?? '')}</li>`)
    .join('');
  const error = model.error === undefined ? '' : `<p class="error" role="alert">${e(model.error)}</p>`;
  const body = `
<h1>Sign in to the reseller portal</h1>
<p>The application <strong id="client-id">${e(request.clientId)}</strong> asks for access:</p>
<ul>${scopes}</ul>
${error}
<form method="post" action="authorize">
  <input type="hidden" name="${LOGIN_FORM.transaction}" value="${e(model.transactionId)}">
  <label>Username <input name="${LOGIN_FORM.username}" id="username" autocomplete="username" required value="${e(model.username ?? '')}"></label>
  <label>Password <input name="${LOGIN_FORM.password}" id="password" type="password" autocomplete="current-password" required></label>
  <div class="actions">
    <button type="submit" id="approve" name="${LOGIN_FORM.decision}" value="${LOGIN_FORM.approve}">Sign in and allow</button>
    <button type="submit" id="deny" name="${LOGIN_FORM.decision}" value="${LOGIN_FORM.deny}" formnovalidate>Deny</button>
  </div>
</form>
<details>
  <summary>Request details</summary>
  <dl>
    <dt>Redirect URI</dt><dd id="redirect-uri">${e(request.redirectUri)}</dd>
    <dt>State</dt><dd id="state">${e(request.state ?? '')}</dd>
  </dl>
</details>`;
  return layout('Sign in', body);
}

interface ErrorPageModel {
  code: string;
  description: string;
}

/** The page for requests that must not be redirected (unknown client, unregistered redirect URI). */
export function renderErrorPage(model: ErrorPageModel): string {
  const body = `
<h1>This sign-in request cannot be completed</h1>
<p class="error">Error: <code id="error-code">${escapeHtml(model.code)}</code></p>
<p id="error-description">${escapeHtml(model.description)}</p>
<p>Return to the application and start again.</p>`;
  return layout('Sign-in error', body);
}

function layout(title: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>
body { font-family: system-ui, sans-serif; max-width: 28rem; margin: 3rem auto; padding: 0 1rem; color: #1b1f24; }
label { display: block; margin: 0.75rem 0; }
input { display: block; width: 100%; padding: 0.4rem; box-sizing: border-box; }
.actions { display: flex; gap: 0.5rem; margin-top: 1rem; }
.error { color: #b00020; }
dd { word-break: break-all; }
</style>
</head>
<body>${body}
</body>
</html>
`;
}
