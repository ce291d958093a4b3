import type { RestRoute } from '../route.ts';

/** Files and the evidence that cites them. The signed upload and download links are the edge's (src/http/edge/steps/file-links.ts). */
export const fileRoutes: RestRoute[] = [
  { method: 'POST', path: '/v1/files/upload-url', status: 201, field: 'Mutation.createFileUpload', args: { input: 'body' }, stage: 'later_scope' },
  { method: 'GET', path: '/v1/files/{file_id}', field: 'Query.file', args: { id: 'path.file_id' }, stage: 'later_scope' },
  { method: 'DELETE', path: '/v1/files/{file_id}', field: 'Mutation.deleteFile', args: { id: 'path.file_id' }, answerExample: { state: 'deleted' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/charges/{charge_id}/evidence', field: 'Mutation.addChargeEvidence', args: { id: 'path.charge_id', input: 'body' }, stage: 'later_scope' },
  { method: 'POST', path: '/v1/disputes/{dispute_id}/evidence', field: 'Mutation.addDisputeEvidence', args: { id: 'path.dispute_id', input: 'body' }, stage: 'later_scope' },
];
