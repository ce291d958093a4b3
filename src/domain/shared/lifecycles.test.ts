import { describe, expect, it } from 'vitest';
import { errorOf } from '../bookings/booking-facts.fixture.ts';
import { agreementMachine } from '../agreements/agreement-state.ts';
import { bookingMachine } from '../bookings/booking-state.ts';
import { chargeMachine } from '../charges/charge-state.ts';
import { depositMachine } from '../deposits/deposit-state.ts';
import { disputeMachine } from '../disputes/dispute-state.ts';
import { fileMachine } from '../files/file-state.ts';
import { identityMachine } from '../identity/identity-state.ts';
import { insuranceMachine } from '../insurance/insurance-state.ts';
import { paymentMachine } from '../payments/payment-state.ts';
import { returnMachine } from '../returns/return-state.ts';

describe('every lifecycle of the spec runs on the one engine', () => {
  it('declares a table for booking, payment, deposit, charge, dispute, identity, agreement, insurance, return and file', () => {
    const objects = [bookingMachine, paymentMachine, depositMachine, chargeMachine, disputeMachine, identityMachine, agreementMachine, insuranceMachine, returnMachine, fileMachine].map((m) => m.object);
    expect(objects).toEqual(['booking', 'payment', 'deposit', 'charge', 'dispute', 'identity_verification', 'agreement', 'insurance', 'return', 'file']);
  });
});

describe('payment', () => {
  it('follows the contract: requires_payment → processing → succeeded → partially_refunded → refunded', () => {
    expect(paymentMachine.nextStates({ state: 'requires_payment' })).toEqual(['checkout_started', 'processing', 'succeeded', 'failed', 'canceled']);
    expect(paymentMachine.nextStates({ state: 'succeeded' })).toEqual(['failed', 'partially_refunded', 'refunded']);
    // Only a refund the processor then fails leaves refunded (its amount is given back).
    expect(paymentMachine.nextStates({ state: 'refunded' })).toEqual(['succeeded', 'partially_refunded']);
  });

  it('refuses a refund of a payment never collected', () => {
    expect(errorOf(() => paymentMachine.check({ state: 'requires_payment' }, 'refund_fully')).message).toBe("Cannot refund a payment in state 'requires_payment'.");
  });
});

describe('deposit', () => {
  it('captures and releases only once the rental is over; releases when the booking is canceled', () => {
    expect(depositMachine.can({ state: 'secured', bookingState: 'active' }, 'capture')).toBe(false);
    expect(depositMachine.can({ state: 'secured', bookingState: 'completed' }, 'capture')).toBe(true);
    expect(depositMachine.can({ state: 'secured', bookingState: 'canceled' }, 'capture')).toBe(false);
    expect(depositMachine.can({ state: 'secured', bookingState: 'canceled' }, 'release')).toBe(true);
    expect(errorOf(() => depositMachine.check({ state: 'secured', bookingState: 'active' }, 'capture')).message).toBe("Cannot capture the deposit: the rental is not over (the booking is 'active').");
  });
});

describe('charge', () => {
  it('answers collection of a disputed charge with charge_disputed (the dispute lock), not a bare wrong state', () => {
    for (const action of ['succeed', 'fail', 'collect'] as const) {
      expect(errorOf(() => chargeMachine.check({ state: 'disputed', id: 'chg_1' }, action))).toMatchObject({ type: 'conflict', code: 'charge_disputed', details: { charge_id: 'chg_1' } });
    }
  });

  it('returns to collectable when its dispute is closed, and is waived when it is approved', () => {
    expect(chargeMachine.nextStates({ state: 'disputed' })).toEqual(['pending', 'succeeded', 'waived']);
    expect(chargeMachine.nextStates({ state: 'waived' })).toEqual([]);
  });
});

describe('dispute', () => {
  it('goes open → under_review → approved | closed, and locks nothing once settled', () => {
    expect(disputeMachine.nextStates({ state: 'open' })).toEqual(['under_review', 'approved', 'closed']);
    expect(disputeMachine.nextStates({ state: 'approved' })).toEqual([]);
  });
});

describe('identity verification, agreement, insurance, return, file', () => {
  it('lets a verdict on identity be revised but not a canceled check', () => {
    expect(identityMachine.check({ state: 'rejected' }, 'verify').to).toBe('verified');
    expect(errorOf(() => identityMachine.check({ state: 'canceled' }, 'verify')).message).toBe("Cannot verify a identity_verification in state 'canceled'.");
  });

  it('signs a draft or sent agreement once', () => {
    expect(agreementMachine.check({ state: 'sent' }, 'sign').event).toBe('agreement.signed');
    expect(errorOf(() => agreementMachine.check({ state: 'signed' }, 'sign')).code).toBe('invalid_state_transition');
  });

  it('approves or rejects a submitted insurance, and takes a rejected one again', () => {
    expect(insuranceMachine.nextStates({ state: 'submitted', expiresOn: null })).toEqual(['approved', 'rejected']);
    expect(insuranceMachine.nextStates({ state: 'rejected', expiresOn: null })).toEqual(['submitted']);
  });

  it('approves only a policy in force through the rental’s last day', () => {
    expect(insuranceMachine.check({ state: 'submitted', expiresOn: '2027-03-05', rentalEndsOn: '2027-03-05' }, 'approve').to).toBe('approved');
    const refused = errorOf(() => insuranceMachine.check({ state: 'submitted', expiresOn: '2027-03-04', rentalEndsOn: '2027-03-05' }, 'approve'));
    expect(refused).toMatchObject({ code: 'invalid_state_transition', message: 'Cannot approve the insurance: the policy expires on 2027-03-04, before the rental ends on 2027-03-05.' });
    expect(insuranceMachine.nextStates({ state: 'submitted', expiresOn: '2027-03-04', rentalEndsOn: '2027-03-05' })).toEqual(['rejected']);
  });

  it('walks a return from start to completion', () => {
    expect(returnMachine.nextStates({ state: 'not_started' })).toEqual(['in_progress', 'submitted']);
    expect(returnMachine.check({ state: 'submitted' }, 'complete').to).toBe('completed');
  });

  it('refuses to delete a file that is evidence of an open dispute with file_in_use', () => {
    expect(errorOf(() => fileMachine.check({ state: 'uploaded', id: 'file_1', usedBy: [{ id: 'dsp_1', words: 'evidence of dispute dsp_1 of charge chg_1' }] }, 'delete'))).toMatchObject({ type: 'conflict', code: 'file_in_use' });
    expect(fileMachine.check({ state: 'uploaded', id: 'file_1', usedBy: [] }, 'delete').to).toBe('deleted');
  });
});
