import type { SigningPage } from '../../../domain/agreements/signing-link.ts';
import { formatMoney } from '../../../domain/agreements/agreement-document.ts';
import type { EdgeAnswer, EdgeRequest } from '../runner.ts';

/*
 * The signing link opened in a browser: the same summary as the JSON answer, a link to the
 * PDF and a plain form (no script) that posts the signature back to the link.
 */

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** Whether the caller asked for a page rather than JSON (a browser following the link). */
export const wantsHtml = (request: EdgeRequest) => {
  const accept = request.header('accept') ?? '';
  return accept.includes('text/html') && !accept.startsWith('application/json');
};

/** Nothing on the page loads from elsewhere, and the form posts only back here. */
const HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'cache-control': 'private, no-store',
  'referrer-policy': 'no-referrer',
};

function layout(title: string, body: string, status = 200): EdgeAnswer {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#1a1a1a}dt{font-weight:600}dd{margin:0 0 .6rem}label{display:block;margin:.8rem 0}input[type=text]{width:100%;padding:.4rem}button{padding:.5rem 1.2rem}</style>
</head><body>${body}</body></html>`;
  // A known length, as every answer of the service: one write, not chunks.
  return { status, headers: { ...HEADERS, 'content-length': String(Buffer.byteLength(html)) }, body: html };
}

export function signingPageHtml(page: SigningPage, action: string): EdgeAnswer {
  const facts: [string, string][] = [
    ['Renter', page.customer_name],
    ['Vehicle', page.vehicle_name],
    ['From', page.start_at],
    ['To', page.end_at],
    ['Total', formatMoney(page.total_cents, page.currency)],
    ['Security deposit', formatMoney(page.deposit_cents, page.currency)],
    ['Document', `version ${page.version}, SHA-256 ${page.document_sha256 ?? 'none'}`],
  ];
  const summary = `<dl>${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>`;
  const documentLink = page.document_url ? `<p><a href="${escapeHtml(page.document_url)}">Read the agreement (PDF)</a> (the link works for 5 minutes; reload this page for a new one).</p>` : '';
  const form =
    page.state === 'signed'
      ? `<p><strong>Signed by ${escapeHtml(page.signer_name ?? '')} at ${escapeHtml(page.signed_at ?? '')}.</strong></p>`
      : `<form method="post" action="${escapeHtml(action)}">
<label>Your full name <input type="text" name="signer_name" required maxlength="200" autocomplete="name"></label>
<label><input type="checkbox" name="accept" value="true" required> I have read the agreement and accept it.</label>
<button type="submit">Sign</button></form>`;
  return layout(`Rental agreement: ${page.business_name}`, `<h1>Rental agreement</h1><p>${escapeHtml(page.business_name)}, booking ${escapeHtml(page.booking_id)}</p>${summary}${documentLink}${form}`);
}

export function signingErrorHtml(status: number, message: string): EdgeAnswer {
  return layout('Rental agreement', `<h1>Rental agreement</h1><p>${escapeHtml(message)}</p>`, status);
}
