import { errorCatalogue } from '../shared/errors.ts';

export type SigningLinkRefusal = 'expired' | 'superseded' | 'voided' | 'invalid';

const REFUSALS: Record<SigningLinkRefusal, string> = {
  expired: 'This signing link has expired; ask the business to send the agreement again.',
  superseded: 'This signing link is for a version of the agreement that has been replaced; use the link sent with the current version.',
  voided: 'This agreement was voided and can no longer be signed; ask the business for the new one.',
  invalid: 'This signing link is not valid; use the link exactly as it was sent.',
};

/** Refusals of rental agreements and their signing links. */
export const AgreementErrors = errorCatalogue('agreement', {
  signingLinkInvalid: {
    type: 'authorization_error',
    code: 'agreement_link_invalid',
    description:
      'The signing link was not made by this service for this agreement (altered, or of another business or environment), names a version of the document that has since been replaced, is for an agreement that was voided, or has expired (links live 7 days). Nothing was recorded. POST /v1/bookings/{id}/agreement/send makes a new link.',
    build: (why: SigningLinkRefusal) => ({ message: REFUSALS[why] }),
  },
  notAccepted: {
    type: 'validation_error',
    code: 'agreement_not_accepted',
    description: 'Signing needs `accept: true`: the signer states that they accept the agreement as shown. Nothing was recorded.',
    build: () => ({ message: 'To sign, accept the agreement (accept: true).', param: 'accept' }),
  },
});
