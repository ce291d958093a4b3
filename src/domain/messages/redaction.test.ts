import { describe, expect, it } from 'vitest';
import { CARD_PLACEHOLDER, luhnValid, redactPaymentData } from './redaction.ts';

const REDACTED_CARD = '[card number redacted]';

// --- helpers written independently of the module, to check its output from the outside ---

/** Full-width and ASCII digits to ASCII; other characters unchanged. */
function toAsciiDigits(text: string): string {
  return text.replace(/[\uff10-\uff19]/g, (c) => String(c.charCodeAt(0) - 0xff10));
}

/** Digit strings of the "digit runs" of a text: letters or 5+ other characters end a run. */
function digitRuns(text: string): string[] {
  return toAsciiDigits(text)
    .split(/\p{L}+|[^\p{L}\p{Nd}]{5,}/u)
    .map((piece) => piece.replace(/[^0-9]/g, ''))
    .filter((digits) => digits.length > 0);
}

/** Every contiguous 13-19 digit sub-sequence of the runs that passes the Luhn check. */
function luhnValidSubRuns(text: string): string[] {
  const found: string[] = [];
  for (const run of digitRuns(text)) {
    for (let start = 0; start < run.length; start++) {
      for (let len = 13; len <= 19 && start + len <= run.length; len++) {
        const candidate = run.slice(start, start + len);
        if (luhnValid(candidate)) found.push(candidate);
      }
    }
  }
  return found;
}

/** Small seeded PRNG (mulberry32) so the property check is reproducible. */
function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SEPARATORS = [
  ' ', '\u00a0', '\u202f', '\u2009', '\u3000', '\t', '\n', '\r\n', '.', '-',
  '\u2010', '\u2011', '\u2012', '\u2013', '\u2014', '\u2015', '\u2212', '/', '_', ',',
];

describe('redactPaymentData', () => {
  describe('card numbers', () => {
    it('removes a spaced test card number and its cvc', () => {
      const { text, redacted } = redactPaymentData('my card is 4242 4242 4242 4242 and cvc 123, thanks');
      expect(redacted).toBe(true);
      expect(text).not.toMatch(/4242/);
      expect(text).not.toMatch(/123/);
      expect(text).toBe('my card is [card number redacted] and cvc [redacted], thanks');
    });

    it('handles dashed and unbroken numbers of 13 to 19 digits', () => {
      expect(CARD_PLACEHOLDER).toBe(REDACTED_CARD);
      expect(redactPaymentData('5555-5555-5555-4444').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('378282246310005').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('4222222222222').text).toBe(REDACTED_CARD); // 13 digits
    });

    it('given a 19-digit Luhn-valid number, when redacted, then the whole number is gone', () => {
      expect(luhnValid('6011000990139421237')).toBe(true);
      expect(redactPaymentData('pan 6011 0009 9013 9421 237 ok')).toEqual({ text: `pan ${REDACTED_CARD} ok`, redacted: true });
      expect(redactPaymentData('4111111111111111110').text).toBe(REDACTED_CARD);
    });

    it('given a card preceded by other digits, when redacted, then the card digits are gone and the rest stays', () => {
      expect(redactPaymentData('ref 12 4242 4242 4242 4242').text).toBe(`ref 12 ${REDACTED_CARD}`);
    });

    it('given a Luhn-valid number glued between other digits, when redacted, then it is found anyway', () => {
      const { text, redacted } = redactPaymentData('99378282246310005');
      expect(redacted).toBe(true);
      expect(text).toBe(`99${REDACTED_CARD}`);
      expect(redactPaymentData('id 0037828224631000599 end').text).not.toContain('378282246310005');
      expect(luhnValidSubRuns(redactPaymentData('id 0037828224631000599 end').text)).toEqual([]);
    });

    it('given groups split by non-breaking or other Unicode spaces, when redacted, then the card is gone', () => {
      for (const space of ['\u00a0', '\u202f', '\u2009', '\u2007', '\u3000', '\t']) {
        const body = `card 4242${space}4242${space}4242${space}4242 thanks`;
        expect(redactPaymentData(body).text, JSON.stringify(body)).toBe(`card ${REDACTED_CARD} thanks`);
      }
    });

    it('given groups split by line breaks, when redacted, then the card is gone', () => {
      expect(redactPaymentData('4242\n4242\n4242\n4242').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('number:\r\n4242\r\n4242\r\n4242\r\n4242\r\nexp 12/30').text).toBe(
        `number:\r\n${REDACTED_CARD}\r\nexp 12/30`,
      );
    });

    it('given groups split by dots, dashes, slashes, underscores or commas, when redacted, then the card is gone', () => {
      const samples = [
        '4242.4242.4242.4242',
        '4242\u20104242\u20114242\u20124242',
        '4242\u20134242\u20144242\u20154242',
        '4242\u22124242\u22124242\u22124242',
        '4242/4242/4242/4242',
        '4242_4242_4242_4242',
        '4242,4242,4242,4242',
      ];
      for (const sample of samples) {
        expect(redactPaymentData(sample).text, JSON.stringify(sample)).toBe(REDACTED_CARD);
      }
    });

    it('given a few separators in a row between groups, when redacted, then the card is gone', () => {
      expect(redactPaymentData('4242 - 4242 - 4242 - 4242').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('4242 .-/4242\r\n\t 4242 , 4242').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('4 2 4 2 4 2 4 2 4 2 4 2 4 2 4 2').text).toBe(REDACTED_CARD);
    });

    it('given a letter right after the card, when redacted, then the card is gone and the letter stays', () => {
      expect(redactPaymentData('card:4242-4242-4242-4242x')).toEqual({ text: `card:${REDACTED_CARD}x`, redacted: true });
    });

    it('given two cards in one text, when redacted, then both are gone', () => {
      const { text, redacted } = redactPaymentData('first 4242 4242 4242 4242, second 5555-5555-5555-4444.');
      expect(redacted).toBe(true);
      expect(text).toBe(`first ${REDACTED_CARD}, second ${REDACTED_CARD}.`);
    });

    it('given two cards with only separators between them, when redacted, then no card digit survives', () => {
      const { text } = redactPaymentData('cards: 4242 4242 4242 4242, 5555 5555 5555 4444');
      expect(text).toBe(`cards: ${REDACTED_CARD}`);
    });

    it('given full-width digits, when redacted, then the card is gone', () => {
      expect(redactPaymentData('カード ４２４２ ４２４２ ４２４２ ４２４２ です').text).toBe(`カード ${REDACTED_CARD} です`);
      expect(redactPaymentData('４２４２４２４２４２４２４２４２').text).toBe(REDACTED_CARD);
      expect(redactPaymentData('4242 ４２４２ 4242 ４２４２').text).toBe(REDACTED_CARD);
    });

    it('given other Unicode decimal digits, when redacted, then they count as digits too', () => {
      // Arabic-Indic (U+0660..) and Devanagari (U+0966..) spellings of 4242 4242 4242 4242.
      const arabicIndic = '٤٢٤٢ ٤٢٤٢ ٤٢٤٢ ٤٢٤٢';
      const devanagari = '४२४२-४२४२-४२४२-४२४२';
      expect(redactPaymentData(arabicIndic).text).toBe(REDACTED_CARD);
      expect(redactPaymentData(devanagari).text).toBe(REDACTED_CARD);
      // Mathematical bold digits are outside the BMP (two UTF-16 units each).
      const mathBold = '𝟒𝟐𝟒𝟐 𝟒𝟐𝟒𝟐 𝟒𝟐𝟒𝟐 𝟒𝟐𝟒𝟐!';
      expect(redactPaymentData(mathBold).text).toBe(`${REDACTED_CARD}!`);
    });

    it('keeps numbers that are not Luhn-valid cards, and short codes without a label', () => {
      const plain = 'Booking ref 1234567890123 at 10:30, gate code 4321, call 555 123 4567';
      // The sample only holds if no 13-19 digit sub-run of its digit runs is Luhn-valid.
      expect(digitRuns(plain)).toEqual(['1234567890123', '1030', '4321', '5551234567']);
      expect(luhnValidSubRuns(plain)).toEqual([]);
      expect(redactPaymentData(plain)).toEqual({ text: plain, redacted: false });
    });

    it('given 200 random cards with random separators and surroundings, when redacted, then no card survives', () => {
      const random = seededRandom(20240607);
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
      const randomDigits = (count: number) => Array.from({ length: count }, () => String(Math.floor(random() * 10))).join('');
      const randomLetters = (count: number) => Array.from({ length: count }, () => pick([...'abcxyzKLMé'])).join('');
      const separator = () => {
        let sep = '';
        const parts = 1 + Math.floor(random() * 3);
        for (let i = 0; i < parts; i++) {
          const next = pick(SEPARATORS);
          if ([...sep, ...next].length <= 4) sep += next;
        }
        return sep;
      };
      const surrounding = () => {
        switch (Math.floor(random() * 5)) {
          case 0: return '';
          case 1: return randomDigits(1 + Math.floor(random() * 4));
          case 2: return randomLetters(1 + Math.floor(random() * 4));
          case 3: return randomDigits(1 + Math.floor(random() * 3)) + separator();
          default: return randomLetters(1 + Math.floor(random() * 3)) + separator() + randomDigits(Math.floor(random() * 3));
        }
      };

      for (let sample = 0; sample < 200; sample++) {
        const body15 = randomDigits(15);
        const check = [...'0123456789'].find((d) => luhnValid(body15 + d))!;
        const card = body15 + check;
        expect(luhnValid(card)).toBe(true);

        let embedded = '';
        for (let i = 0; i < card.length; i++) {
          if (i > 0 && random() < 0.4) embedded += separator();
          const digit = card[i];
          embedded += random() < 0.2 ? String.fromCharCode(0xff10 + Number(digit)) : digit;
        }
        const body = surrounding() + embedded + (random() < 0.5 ? surrounding().split('').reverse().join('') : surrounding());

        const { text, redacted } = redactPaymentData(body);
        const context = JSON.stringify({ sample, body, text });
        expect(redacted, context).toBe(true);
        expect(text, context).toContain(REDACTED_CARD);
        expect(luhnValidSubRuns(text), context).toEqual([]);
        for (const run of digitRuns(text)) expect(run, context).not.toContain(card);
      }
    });
  });

  describe('security codes', () => {
    it('redacts labelled security codes in their usual spellings', () => {
      for (const sample of ['CVV: 1234', 'cvv2=987', 'security code is 321', 'CVC 555', 'cid #4321', 'CSC - 999', 'Card Code: 246', 'verification code = 135']) {
        expect(redactPaymentData(sample).text, sample).toMatch(/\[redacted\]$/);
        expect(redactPaymentData(sample).redacted).toBe(true);
      }
    });

    it('given a label and a code separated by newlines or non-breaking spaces, when redacted, then the code is gone', () => {
      expect(redactPaymentData('CVC:\n123').text).toBe('CVC:\n[redacted]');
      expect(redactPaymentData('cvv\r\n\r\n1234 thanks').text).toBe('cvv\r\n\r\n[redacted] thanks');
      expect(redactPaymentData('security\u00a0code\u00a0is\u00a0321').text).toBe('security\u00a0code\u00a0is\u00a0[redacted]');
      expect(redactPaymentData('card code\u202f456.').text).toBe('card code\u202f[redacted].');
    });

    it('given a code in full-width digits, when redacted, then the code is gone', () => {
      expect(redactPaymentData('CVC １２３').text).toBe('CVC [redacted]');
    });
  });

  describe('robustness', () => {
    it('never throws on odd strings and still redacts what it can', () => {
      const odd = ['', '\u0000', '\ud800', '\udc00abc', '😀'.repeat(50), '\ud83d4242 4242 4242 4242\u0000', '\u0000'.repeat(100) + '4'];
      for (const sample of odd) expect(() => redactPaymentData(sample)).not.toThrow();
      expect(redactPaymentData('\ud83d4242 4242 4242 4242\u0000').text).toBe(`\ud83d${REDACTED_CARD}\u0000`);
      expect(redactPaymentData('😀4242😀4242😀4242😀4242😀').text).toBe(`😀${REDACTED_CARD}😀`);
    });

    it('stays fast on 5,000-character bodies', () => {
      const bodies = [
        '4242 '.repeat(1000),
        '1'.repeat(5000),
        '１ -'.repeat(1666),
        '9 . , '.repeat(833),
        'cvc '.repeat(1250),
      ];
      const started = performance.now();
      for (const body of bodies) redactPaymentData(body);
      expect(performance.now() - started).toBeLessThan(1000);
    });
  });

  it('knows a Luhn checksum', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });
});
