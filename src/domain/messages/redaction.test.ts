import { describe, expect, it } from 'vitest';
import { luhnValid, redactPaymentData } from './redaction.ts';

describe('redactPaymentData', () => {
  it('removes a spaced test card number and its cvc', () => {
    const { text, redacted } = redactPaymentData('my card is 4242 4242 4242 4242 and cvc 123, thanks');
    expect(redacted).toBe(true);
    expect(text).not.toMatch(/4242/);
    expect(text).not.toMatch(/123/);
    expect(text).toBe('my card is [card number redacted] and cvc [redacted], thanks');
  });

  it('handles dashed and unbroken numbers of 13 to 19 digits', () => {
    expect(redactPaymentData('5555-5555-5555-4444').text).toBe('[card number redacted]');
    expect(redactPaymentData('378282246310005').text).toBe('[card number redacted]');
    expect(redactPaymentData('4222222222222').text).toBe('[card number redacted]'); // 13 digits
  });

  it('keeps numbers that are not Luhn-valid cards, and short codes without a label', () => {
    const plain = 'Booking ref 1234567890123 at 10:30, gate code 4321, call 555 123 4567';
    expect(redactPaymentData(plain)).toEqual({ text: plain, redacted: false });
  });

  it('redacts labelled security codes in their usual spellings', () => {
    for (const sample of ['CVV: 1234', 'cvv2=987', 'security code is 321', 'CVC 555']) {
      expect(redactPaymentData(sample).text).toMatch(/\[redacted\]$/);
    }
  });

  it('knows a Luhn checksum', () => {
    expect(luhnValid('4242424242424242')).toBe(true);
    expect(luhnValid('4242424242424241')).toBe(false);
  });
});
