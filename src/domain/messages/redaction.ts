/**
 * Payment credentials never pass through the API (the spec, item 7): message bodies lose card
 * numbers and security codes before they are stored or echoed.
 *
 * Card numbers are found in "digit runs": maximal sequences of digits (any Unicode decimal
 * digit, \p{Nd}) in which consecutive digits are separated by at most MAX_SEPARATOR_GAP code
 * points that are neither letters nor digits (spaces of any kind, tabs, newlines, dots, dashes,
 * slashes, underscores, commas, ...). A letter always ends a run. Inside a run every contiguous
 * sub-sequence of 13 to 19 digits that passes the Luhn check is a card number; the text from its
 * first to its last digit is replaced, and overlapping or adjacent hits merge into one
 * placeholder. This is deliberately aggressive: a false positive is acceptable, a leak is not.
 */
export const CARD_PLACEHOLDER = '[card number redacted]';
export const CODE_PLACEHOLDER = '[redacted]';

const MIN_CARD_DIGITS = 13;
const MAX_CARD_DIGITS = 19;
const MAX_SEPARATOR_GAP = 4;

// A security-code label, separators (whitespace of any kind incl. newlines and no-break spaces,
// ':', '=', '#', dashes, the word "is"), then 3-4 digits: "cvc 123", "CVV: 1234", "security code is 123".
const SECURITY_CODE =
  /\b(cvc2?|cvv2?|cid|csc|security\s+code|card\s+code|verification\s+code)((?:[\s:=#\-\u2010-\u2015\u2212]|\bis\b)*)\p{Nd}{3,4}(?!\p{Nd})/giu;

const DECIMAL_DIGIT = /^\p{Nd}$/u;
const LETTER = /^\p{L}$/u;

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

const NOT_A_DIGIT = -1;
const digitValueCache = new Map<number, number>();

function isDecimalDigit(cp: number): boolean {
  return DECIMAL_DIGIT.test(String.fromCodePoint(cp));
}

/**
 * Numeric value of a code point, or NOT_A_DIGIT. Unicode assigns decimal digits (Nd) only in
 * contiguous blocks of ten, 0 to 9 in order, so the value is the offset from the start of the
 * maximal contiguous Nd block, modulo 10.
 */
function digitValue(cp: number): number {
  if (cp >= 48 && cp <= 57) return cp - 48;
  if (cp < 128) return NOT_A_DIGIT;
  const cached = digitValueCache.get(cp);
  if (cached !== undefined) return cached;
  let value = NOT_A_DIGIT;
  if (isDecimalDigit(cp)) {
    let start = cp;
    while (start > 0 && isDecimalDigit(start - 1)) start--;
    value = (cp - start) % 10;
  }
  digitValueCache.set(cp, value);
  return value;
}

function isLetter(cp: number): boolean {
  if (cp < 128) return (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122);
  return LETTER.test(String.fromCodePoint(cp));
}

interface DigitRun {
  values: number[];
  starts: number[]; // code-unit index of each digit
  ends: number[]; // code-unit index just after each digit
}

/** Code-unit spans [start, end) of card numbers inside one digit run, merged and in order. */
function cardSpans(run: DigitRun, out: Array<[number, number]>): void {
  const n = run.values.length;
  if (n < MIN_CARD_DIGITS) return;
  // coverDelta[i] > 0 after a prefix sum means digit i belongs to some Luhn-valid sub-sequence.
  const coverDelta = new Int32Array(n + 1);
  const { values } = run;
  for (let end = MIN_CARD_DIGITS - 1; end < n; end++) {
    // Luhn counts from the rightmost digit, so extend leftwards from each end: all candidates
    // ending here are checked with one pass of at most 19 digits (7 checks).
    let sum = 0;
    let leftmost = -1;
    for (let k = 0; k < MAX_CARD_DIGITS && end - k >= 0; k++) {
      let d = values[end - k];
      if (k % 2 === 1) {
        d *= 2;
        if (d > 9) d -= 9;
      }
      sum += d;
      if (k + 1 >= MIN_CARD_DIGITS && sum % 10 === 0) leftmost = end - k;
    }
    if (leftmost >= 0) {
      coverDelta[leftmost] += 1;
      coverDelta[end + 1] -= 1;
    }
  }
  let depth = 0;
  let spanStart = -1;
  for (let i = 0; i < n; i++) {
    depth += coverDelta[i];
    if (depth > 0 && spanStart < 0) spanStart = i;
    if (depth <= 0 && spanStart >= 0) {
      out.push([run.starts[spanStart], run.ends[i - 1]]);
      spanStart = -1;
    }
  }
  if (spanStart >= 0) out.push([run.starts[spanStart], run.ends[n - 1]]);
}

function findCardSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  let run: DigitRun = { values: [], starts: [], ends: [] };
  let gap = 0; // separators (code points) since the last digit of the current run
  const flush = () => {
    if (run.values.length > 0) {
      cardSpans(run, spans);
      run = { values: [], starts: [], ends: [] };
    }
  };
  let i = 0;
  while (i < text.length) {
    // codePointAt never throws; a lone surrogate comes back as itself.
    const cp = text.codePointAt(i)!;
    const width = cp > 0xffff ? 2 : 1;
    const value = digitValue(cp);
    if (value !== NOT_A_DIGIT) {
      if (gap > MAX_SEPARATOR_GAP) flush();
      run.values.push(value);
      run.starts.push(i);
      run.ends.push(i + width);
      gap = 0;
    } else if (isLetter(cp)) {
      flush();
      gap = 0;
    } else {
      gap++;
    }
    i += width;
  }
  flush();
  return spans;
}

export function redactPaymentData(text: string): { text: string; redacted: boolean } {
  let redacted = false;
  const spans = findCardSpans(text);
  let withoutCards = text;
  if (spans.length > 0) {
    redacted = true;
    const parts: string[] = [];
    let cursor = 0;
    for (const [start, end] of spans) {
      parts.push(text.slice(cursor, start), CARD_PLACEHOLDER);
      cursor = end;
    }
    parts.push(text.slice(cursor));
    withoutCards = parts.join('');
  }
  const withoutCodes = withoutCards.replace(SECURITY_CODE, (_m, label: string, sep: string) => {
    redacted = true;
    return `${label}${sep}${CODE_PLACEHOLDER}`;
  });
  return { text: withoutCodes, redacted };
}
