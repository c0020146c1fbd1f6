/**
 * The dashboard's Content-Security-Policy. Scripts: only those carrying this
 * response's nonce, and what they load ('strict-dynamic'). Styles allow inline
 * `style` attributes (React's style prop; the thread tree positions nodes with
 * them), which cannot run code. Nothing may frame the console or post forms elsewhere.
 */
export function pageCsp(nonce: string, dev = false): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${dev ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}
