import type { Theme } from './api.ts';

/*
 * The elements' styles: constructable stylesheets adopted by each shadow root, so a page's
 * strict Content-Security-Policy (no 'unsafe-inline') needs nothing for them, and no element
 * ever carries a style attribute. Colors and font come from the business's branding, each
 * overridable by the page with a CSS custom property (--rental-*), which inherits into the
 * shadow root.
 */

const BASE = `
:host{display:block;font-family:var(--rental-font,var(--rental-brand-font,system-ui,sans-serif));color:var(--rental-text,#1b1b1f);
  --_primary:var(--rental-primary,var(--rental-brand-primary,#1f4fbf));--_on-primary:var(--rental-on-primary,#fff);
  --_accent:var(--rental-accent,var(--rental-brand-accent,#0b6b3a));--_border:var(--rental-border,#8a8a94);
  --_radius:var(--rental-radius,8px);--_bg:var(--rental-background,#fff);--_error:var(--rental-error,#b3261e);max-width:40rem}
*{box-sizing:border-box}
.panel{background:var(--_bg);border:1px solid var(--_border);border-radius:var(--_radius);padding:1rem 1.25rem}
h2,h3{margin:.2rem 0 .8rem;font-size:1.15rem}
h2:focus,h3:focus{outline:none}
form,fieldset{margin:0}
fieldset{border:0;padding:0}
legend{font-weight:600;margin-bottom:.5rem;padding:0}
.row{display:flex;flex-wrap:wrap;gap:.75rem;align-items:flex-end}
label{display:flex;flex-direction:column;gap:.25rem;font-weight:600;font-size:.95rem}
input{font:inherit;padding:.5rem .6rem;border:1px solid var(--_border);border-radius:calc(var(--_radius) / 2);background:#fff;color:#1b1b1f;min-width:12rem}
input[aria-invalid=true]{border-color:var(--_error)}
button{font:inherit;font-weight:600;padding:.55rem 1.1rem;border-radius:calc(var(--_radius) / 2);border:1px solid var(--_primary);background:var(--_primary);color:var(--_on-primary);cursor:pointer}
button.secondary{background:#fff;color:var(--_primary)}
button:disabled{opacity:.6;cursor:progress}
:is(button,input,a):focus-visible{outline:3px solid var(--rental-focus,#f2a900);outline-offset:2px}
ul.choices{list-style:none;margin:0;padding:0;display:grid;gap:.5rem}
.choice{display:flex;flex-direction:row;gap:.6rem;align-items:center;border:1px solid var(--_border);border-radius:var(--_radius);padding:.6rem .8rem;font-weight:400}
.choice input{min-width:0;width:1.1rem;height:1.1rem;margin:0}
.choice .name{font-weight:600}
.total{font-size:1.1rem;margin:.8rem 0}
.total strong{color:var(--_accent)}
.error{color:var(--_error);font-weight:600;margin:.4rem 0}
.field-error{color:var(--_error);font-size:.9rem;font-weight:400}
.note{color:#4a4a55;font-size:.92rem}
.actions{display:flex;gap:.6rem;margin-top:.9rem}
.processor-form{margin:.8rem 0;min-height:3rem}
dl{display:grid;grid-template-columns:max-content 1fr;gap:.3rem 1rem;margin:.5rem 0}
dt{font-weight:600}
dd{margin:0}
table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.3rem .4rem;border-bottom:1px solid #ddd}
.busy{color:var(--_error)}
.free{color:var(--_accent)}
.sr-only{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
`;

let base: CSSStyleSheet | null = null;

export function baseSheet(): CSSStyleSheet {
  if (!base) {
    base = new CSSStyleSheet();
    base.replaceSync(BASE);
  }
  return base;
}

const COLOR = /^#[0-9a-fA-F]{6}$/;
const FONT = /^[\w .,'"-]{1,80}$/;

/** The business's branding as the defaults of the --rental-* properties (the page's own values win). */
export function themeSheet(theme: Theme | null): CSSStyleSheet {
  const sheet = new CSSStyleSheet();
  const rules: string[] = [];
  if (theme?.primary_color && COLOR.test(theme.primary_color)) rules.push(`--rental-brand-primary:${theme.primary_color}`);
  if (theme?.accent_color && COLOR.test(theme.accent_color)) rules.push(`--rental-brand-accent:${theme.accent_color}`);
  if (theme?.font && FONT.test(theme.font)) rules.push(`--rental-brand-font:${theme.font.replace(/[;{}]/g, '')},system-ui,sans-serif`);
  sheet.replaceSync(rules.length ? `:host{${rules.join(';')}}` : '');
  return sheet;
}
