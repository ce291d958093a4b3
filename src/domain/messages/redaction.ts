/**
 * Payment credentials never pass through the API (SPEC.md item 7): message bodies lose card
 * numbers and security codes before they are stored or echoed.
 */
export const CARD_PLACEHOLDER = '[card number redacted]';
export const CODE_PLACEHOLDER = '[redacted]';

// 13-19 digits, optionally split by single spaces or dashes, not glued to other digits.
const CARD_CANDIDATE = /(?<!\d)\d(?:[ -]?\d){12,18}(?!\d)/g;
// A security-code label followed by 3-4 digits: "cvc 123", "CVV: 1234", "security code is 123".
const SECURITY_CODE = /\b(cvc2?|cvv2?|cid|csc|security\s+code|card\s+code|verification\s+code)(\s*(?:is|=|:|#|-)?\s*)\d{3,4}(?!\d)/gi;

export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function redactPaymentData(text: string): { text: string; redacted: boolean } {
  let redacted = false;
  const withoutCards = text.replace(CARD_CANDIDATE, (match) => {
    const digits = match.replace(/[ -]/g, '');
    if (digits.length < 13 || digits.length > 19 || !luhnValid(digits)) return match;
    redacted = true;
    return CARD_PLACEHOLDER;
  });
  const withoutCodes = withoutCards.replace(SECURITY_CODE, (_m, label: string, sep: string) => {
    redacted = true;
    return `${label}${sep}${CODE_PLACEHOLDER}`;
  });
  return { text: withoutCodes, redacted };
}
