import { readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ENGINES, graphqlClient, restClient, startTestApp, type Engine, type TestApp } from './support/app.ts';
import { createBooking, createVehicle, TINY_PNG } from './support/fixtures.ts';
import { startS3StandIn, type S3StandIn } from './support/s3-stand-in.ts';
import { loadConfig } from '../src/config.ts';
import { fileLinkSigner } from '../src/domain/files/file-links.ts';

/*
 * Files and evidence through the public API: a signed link to upload the bytes (checked
 * against the declared type from their signature, and the declared size), metadata with a
 * five-minute download link, deletion, and files cited as evidence of charges and disputes,
 * which an open dispute keeps from being deleted. On both engines, over REST and GraphQL, with
 * the bytes in a directory (the default) and in an S3-compatible bucket (the AWS SDK against
 * a stand-in speaking S3's REST protocol, signatures checked).
 */
type Storage = 'directory' | 's3';
const SUITES: [Engine, Storage][] = ENGINES.flatMap((engine) => (['directory', 's3'] as const).map((storage) => [engine, storage] as [Engine, Storage]));
const S3 = { bucket: 'rental-files', accessKeyId: 'AKIASTANDIN000000001', secretAccessKey: 'standin/secret/key/0123456789abcdefghij', region: 'eu-west-1' };
const PNG = TINY_PNG;
const PDF = Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n');
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10]), Buffer.from('JFIF\u0000'), Buffer.alloc(64, 7), Buffer.from([0xff, 0xd9])]);

describe.each(SUITES)('files and evidence on %s, bytes in %s storage', (engine, storage) => {
  let t: TestApp;
  let s3: S3StandIn | null = null;
  let api: ReturnType<typeof restClient>;
  let gql: ReturnType<typeof graphqlClient>;
  let vehicleId: string;
  const credentials = { id: process.env.AWS_ACCESS_KEY_ID, secret: process.env.AWS_SECRET_ACCESS_KEY };

  beforeAll(async () => {
    if (storage === 's3') {
      s3 = await startS3StandIn(S3);
      // The SDK's standard credential chain, as in production: here, the environment.
      process.env.AWS_ACCESS_KEY_ID = S3.accessKeyId;
      process.env.AWS_SECRET_ACCESS_KEY = S3.secretAccessKey;
    }
    const filesS3 = s3 ? loadConfig({ FILES_S3_BUCKET: S3.bucket, FILES_S3_ENDPOINT: s3.url, FILES_S3_REGION: S3.region, FILES_S3_PREFIX: 'uploads/' }).filesS3 : undefined;
    t = await startTestApp(engine, { filesS3 });
    api = restClient(t.baseUrl, t.business.test_secret_key);
    gql = graphqlClient(t.baseUrl, t.business.test_secret_key);
    vehicleId = (await createVehicle(api)).id;
  });
  afterAll(async () => {
    await t?.close();
    await s3?.close();
    process.env.AWS_ACCESS_KEY_ID = credentials.id;
    process.env.AWS_SECRET_ACCESS_KEY = credentials.secret;
    if (credentials.id === undefined) delete process.env.AWS_ACCESS_KEY_ID;
    if (credentials.secret === undefined) delete process.env.AWS_SECRET_ACCESS_KEY;
  });

  /** Where the file's bytes are kept: paths under the files directory, or keys of the bucket. */
  async function stored(fileId: string): Promise<string[]> {
    if (s3) return [...s3.objects.keys()].filter((key) => key.includes(fileId));
    return (await readdir(t.filesDir, { recursive: true })).filter((p) => p.includes(fileId) && p.split('/').length > 3);
  }

  const put = (url: string, body: Buffer) => fetch(url, { method: 'PUT', body: new Uint8Array(body) }).then(async (res) => ({ status: res.status, body: (await res.json()) as any }));

  async function uploadLink(body: Record<string, unknown> = {}, client = api) {
    const res = await client.post('/v1/files/upload-url', { purpose: 'damage_evidence', filename: 'bumper.png', content_type: 'image/png', size_bytes: PNG.length, ...body });
    expect(res.status).toBe(201);
    return res.body as { id: string; upload_url: string; expires_at: string };
  }

  async function uploaded(bytes = PNG, contentType = 'image/png', client = api) {
    const link = await uploadLink({ content_type: contentType, size_bytes: bytes.length, filename: `evidence.${contentType.split('/')[1]}` }, client);
    const res = await put(link.upload_url, bytes);
    expect(res.status).toBe(200);
    return res.body as { id: string };
  }

  async function activeBooking() {
    const booking = await createBooking(api, vehicleId);
    for (const step of ['payment/succeed', 'identity/verify', 'agreement/sign', 'deposit/secure', 'pickup']) expect((await api.post(`/v1/test/bookings/${booking.id}/${step}`)).status).toBe(200);
    return booking;
  }

  it('hands out an upload link, takes the bytes there without a key, and answers the metadata with a five-minute download link to the same bytes', async () => {
    const before = Date.now();
    const link = await uploadLink();
    const after = Date.now();
    expect(link).toEqual({ object: 'file_upload', id: expect.stringMatching(/^file_/), livemode: false, upload_url: expect.stringContaining(`/v1/files/${link.id}/upload?expires=`), expires_at: expect.any(String) });
    // Fifteen minutes from when the request ran (the time between the two clocks reads is the request's).
    expect(Date.parse(link.expires_at)).toBeGreaterThanOrEqual(before + 15 * 60_000 - 1000);
    expect(Date.parse(link.expires_at)).toBeLessThanOrEqual(after + 15 * 60_000 + 1000);
    expect((await api.get(`/v1/files/${link.id}`)).body).toMatchObject({ state: 'pending_upload', download_url: null });

    const res = await put(link.upload_url, PNG);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'file', id: link.id, state: 'uploaded', content_type: 'image/png', size_bytes: PNG.length, filename: 'bumper.png', purpose: 'damage_evidence' });
    expect(res.body.sha256).toMatch(/^[0-9a-f]{64}$/);
    // Kept under the service's own key (never the uploaded name), private to the bucket or directory.
    const keys = await stored(link.id);
    expect(keys).toHaveLength(1);
    if (s3) {
      expect(keys[0]).toBe(`uploads/${t.business.business_id}/test/${link.id}/${res.body.sha256}`);
      expect(s3.objects.get(keys[0])).toMatchObject({ contentType: 'image/png', bytes: PNG });
      expect(s3.requests.find((r) => r.method === 'PUT' && r.key === keys[0])).toMatchObject({ bucket: 'rental-files', authorization: expect.stringContaining(`Credential=${S3.accessKeyId}/`) });
    }

    const file = (await api.get(`/v1/files/${link.id}`)).body;
    expect(file).toEqual({
      object: 'file', id: link.id, livemode: false, purpose: 'damage_evidence', filename: 'bumper.png', content_type: 'image/png', size_bytes: PNG.length, state: 'uploaded',
      sha256: res.body.sha256, uploaded_at: expect.any(String), created_at: expect.any(String), download_url: expect.stringContaining(`/v1/files/${link.id}/download?expires=`), download_url_expires_at: expect.any(String),
    });
    expect(Date.parse(file.download_url_expires_at) - Date.now()).toBeLessThanOrEqual(5 * 60_000);
    const download = await fetch(file.download_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('image/png');
    expect(download.headers.get('content-disposition')).toBe("attachment; filename*=UTF-8''bumper.png");
    expect(download.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true);

    const viaGraphql = await gql(`query($id: ID!) { file(id: $id) { id state contentType downloadUrl downloadUrlExpiresAt } }`, { id: link.id });
    expect(viaGraphql.errors).toBeUndefined();
    expect(viaGraphql.data.file).toMatchObject({ id: link.id, state: 'uploaded', contentType: 'image/png', downloadUrl: expect.stringContaining('/download?') });
    expect((await restClient(t.baseUrl, t.other.test_secret_key).get(`/v1/files/${link.id}`)).status).toBe(404);
    expect((await restClient(t.baseUrl, t.business.live_secret_key).get(`/v1/files/${link.id}`)).status).toBe(404);
  });

  it('checks the type from the bytes and the size, refuses links that are not ours or have expired, and takes one upload per file', async () => {
    const disguised = await uploadLink({ content_type: 'image/jpeg', filename: 'photo.jpg' });
    const mismatch = await put(disguised.upload_url, PNG);
    expect(mismatch.status).toBe(422);
    expect(mismatch.body.error).toMatchObject({ type: 'validation_error', code: 'file_type_mismatch', param: 'content_type' });
    expect(mismatch.body.error.message).toContain('image/png');
    const text = await uploadLink({ content_type: 'application/pdf', size_bytes: 11 });
    expect((await put(text.upload_url, Buffer.from('hello world'))).body.error.code).toBe('file_type_mismatch');
    const short = await put((await uploadLink({ size_bytes: PNG.length + 1 })).upload_url, PNG);
    expect(short.body.error).toMatchObject({ code: 'file_size_mismatch', param: 'size_bytes' });
    expect((await api.get(`/v1/files/${disguised.id}`)).body.state).toBe('pending_upload');
    // Refused uploads leave nothing stored.
    expect(await stored(disguised.id)).toEqual([]);
    expect(await stored(text.id)).toEqual([]);

    const link = await uploadLink();
    const forged = link.upload_url.replace(/signature=[^&]+/, 'signature=AAAA');
    expect(await put(forged, PNG)).toMatchObject({ status: 403, body: { error: { type: 'authorization_error', code: 'file_link_invalid' } } });
    const unsigned = link.upload_url.split('?')[0];
    expect((await put(unsigned, PNG)).status).toBe(403);
    const secret = (await t.db.prisma.platformSecret.findUniqueOrThrow({ where: { name: 'file_links' } })).value;
    const expired = `${unsigned}?${fileLinkSigner(secret).query({ businessId: t.business.business_id, livemode: false }, link.id, 'upload', new Date(Date.now() - 1000))}`;
    const late = await put(expired, PNG);
    expect(late.status).toBe(403);
    expect(late.body.error.message).toMatch(/expired/);
    const asDownload = link.upload_url.replace('/upload?', '/download?');
    expect((await fetch(asDownload)).status).toBe(403);
    expect((await fetch(link.upload_url, { method: 'POST', body: new Uint8Array(PNG) })).status).toBe(405);

    expect((await put(link.upload_url, PNG)).status).toBe(200);
    const again = await put(link.upload_url, PDF);
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'uploaded' });

    const huge = await uploadLink({ size_bytes: 10 * 1024 * 1024 });
    expect((await put(huge.upload_url, Buffer.alloc(10 * 1024 * 1024 + 1))).status).toBe(413);
    for (const bad of [{ content_type: 'text/html' }, { size_bytes: 10 * 1024 * 1024 + 1 }, { size_bytes: 0 }, { purpose: 'selfie' }, { filename: '' }]) {
      const res = await api.post('/v1/files/upload-url', { purpose: 'damage_evidence', filename: 'a.png', content_type: 'image/png', size_bytes: 10, ...bad });
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe(Object.keys(bad)[0]);
    }
  });

  it('cites uploaded files as evidence of a charge and of a dispute; an open dispute or a standing charge keeps them from deletion, settled ones let them go', async () => {
    const booking = await activeBooking();
    const [photo, receipt, statement] = [await uploaded(), await uploaded(PDF, 'application/pdf'), await uploaded(JPEG, 'image/jpeg')];
    const charge = await api.post(`/v1/bookings/${booking.id}/charges`, { type: 'damage', amount_cents: 9000, description: 'Dent in the door', evidence: [photo.id] });
    expect(charge.status).toBe(201);
    expect(charge.body.evidence).toEqual([{ file_id: photo.id, description: null, created_at: expect.any(String) }]);

    const added = await api.post(`/v1/charges/${charge.body.id}/evidence`, { file_ids: [receipt.id], description: 'Body shop estimate' });
    expect(added.status).toBe(200);
    expect(added.body.evidence.map((e: any) => [e.file_id, e.description])).toEqual([[photo.id, null], [receipt.id, 'Body shop estimate']]);

    const pending = await uploadLink();
    const foreign = await uploaded(PNG, 'image/png', restClient(t.baseUrl, t.other.test_secret_key));
    for (const [fileId, why] of [[pending.id, 'pending_upload'], [foreign.id, 'no such file'], ['file_nope', 'no such file']]) {
      const refused = await api.post(`/v1/charges/${charge.body.id}/evidence`, { file_ids: [fileId] });
      expect(refused.status).toBe(422);
      expect(refused.body.error).toMatchObject({ type: 'validation_error', code: 'file_not_usable', param: 'file_ids' });
      expect(refused.body.error.message).toContain(why);
    }

    const dispute = await api.post(`/v1/charges/${charge.body.id}/disputes`, { reason: 'damage_preexisting', description: 'It was there at pickup', evidence: [statement.id] });
    expect(dispute.status).toBe(201);
    expect(dispute.body).toMatchObject({ state: 'open', evidence: [{ file_id: statement.id, description: null }] });
    // The charge's evidence is under the dispute too.
    for (const cited of [photo, statement]) {
      const refused = await api.call('DELETE', `/v1/files/${cited.id}`);
      expect(refused.status).toBe(409);
      expect(refused.body.error).toMatchObject({ type: 'conflict', code: 'file_in_use' });
    }
    const refused = await api.call('DELETE', `/v1/files/${statement.id}`);
    expect(refused.body.error.message).toBe(`File ${statement.id} cannot be deleted: it is used by evidence of dispute ${dispute.body.id} of charge ${charge.body.id}.`);
    expect(refused.body.error.used_by).toEqual([dispute.body.id]);

    const more = await gql(
      `mutation($id: ID!, $input: EvidenceInput!) { addDisputeEvidence(id: $id, input: $input) { state evidence { fileId description file { filename contentType } } } }`,
      { id: dispute.body.id, input: { fileIds: [receipt.id], description: 'Our estimate, again' } },
    );
    expect(more.errors).toBeUndefined();
    expect(more.data.addDisputeEvidence.state).toBe('under_review');
    expect(more.data.addDisputeEvidence.evidence.map((e: any) => e.file.filename)).toEqual(['evidence.jpeg', 'evidence.pdf']);
    const updated = (await api.get('/v1/events?type=dispute.updated&limit=100')).body.data.filter((e: any) => e.data.object.id === dispute.body.id);
    expect(updated).toHaveLength(1);

    expect((await api.post(`/v1/disputes/${dispute.body.id}/close`)).status).toBe(200);
    const late = await api.post(`/v1/disputes/${dispute.body.id}/evidence`, { file_ids: [photo.id] });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'closed' });
    // The dispute is settled, but the charge stands again, collectable: its evidence is still in use until it is collected or waived.
    expect((await api.call('DELETE', `/v1/files/${statement.id}`)).status).toBe(200);
    const standing = await api.call('DELETE', `/v1/files/${photo.id}`);
    expect(standing.body.error).toMatchObject({ code: 'file_in_use', message: `File ${photo.id} cannot be deleted: it is used by evidence of charge ${charge.body.id} of booking ${booking.id}.`, used_by: [charge.body.id] });
    expect((await api.post(`/v1/charges/${charge.body.id}/waive`)).status).toBe(200);

    const downloadUrl = (await api.get(`/v1/files/${photo.id}`)).body.download_url;
    const deleted = await api.call('DELETE', `/v1/files/${photo.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toMatchObject({ id: photo.id, state: 'deleted', download_url: null });
    expect((await fetch(downloadUrl)).status).toBe(404);
    expect(await stored(photo.id)).toEqual([]);
    expect((await api.call('DELETE', `/v1/files/${photo.id}`)).body.error).toMatchObject({ code: 'invalid_state_transition', current_state: 'deleted' });
    // The charge still shows what it cited.
    expect((await api.get(`/v1/charges/${charge.body.id}`)).body.evidence.map((e: any) => e.file_id)).toEqual([photo.id, receipt.id]);
  });

  it('refuses to delete the document of an agreement, an identity verification or an insurance submission (409 file_in_use naming the user), over REST and GraphQL', async () => {
    const booking = await createBooking(api, vehicleId);
    expect((await api.post(`/v1/test/bookings/${booking.id}/payment/succeed`)).status).toBe(200);
    const refusal = async (fileId: string) => {
      const res = await api.call('DELETE', `/v1/files/${fileId}`);
      expect(res.status).toBe(409);
      expect(res.body.error).toMatchObject({ type: 'conflict', code: 'file_in_use' });
      expect((await api.get(`/v1/files/${fileId}`)).body.state).toBe('uploaded');
      expect(await stored(fileId)).toHaveLength(1);
      return res.body.error as { message: string; used_by: string[] };
    };

    // The agreement's document, pending signature and signed.
    const agreement = (await api.post(`/v1/bookings/${booking.id}/agreement`)).body;
    expect((await refusal(agreement.file_id)).message).toBe(`File ${agreement.file_id} cannot be deleted: it is used by agreement ${agreement.id} of booking ${booking.id}.`);
    expect((await api.post(`/v1/test/bookings/${booking.id}/agreement/sign`)).status).toBe(200);
    expect(await refusal(agreement.file_id)).toMatchObject({ used_by: [agreement.id] });

    // Identity documents.
    const idFront = (await uploadLinkAndPut('identity_document')).id;
    const verification = await api.post(`/v1/bookings/${booking.id}/identity-verification`, { documents: [{ kind: 'id_front', file_id: idFront }] });
    expect(verification.status).toBe(200);
    expect(await refusal(idFront)).toMatchObject({ message: `File ${idFront} cannot be deleted: it is used by identity verification ${verification.body.id} of booking ${booking.id}.`, used_by: [verification.body.id] });

    // Insurance documents, over GraphQL too.
    const policy = (await uploadLinkAndPut('insurance_document')).id;
    const insurance = await api.post(`/v1/bookings/${booking.id}/insurance`, { provider: 'Acme Mutual', policy_ref: 'AM-1', document_file_ids: [policy] });
    expect(insurance.status).toBe(200);
    expect(await refusal(policy)).toMatchObject({ message: `File ${policy} cannot be deleted: it is used by insurance submission ${insurance.body.id} of booking ${booking.id}.` });
    const viaGraphql = await gql(`mutation($id: ID!) { deleteFile(id: $id) { id state } }`, { id: policy });
    expect(viaGraphql.errors?.[0].message).toContain(`insurance submission ${insurance.body.id}`);
    expect(viaGraphql.errors?.[0].extensions).toMatchObject({ type: 'conflict', code: 'file_in_use', used_by: [insurance.body.id] });

    // A file nothing uses is deleted as before.
    const unused = (await uploadLinkAndPut('insurance_document')).id;
    expect((await api.call('DELETE', `/v1/files/${unused}`)).status).toBe(200);
  });

  async function uploadLinkAndPut(purpose: string) {
    const link = await uploadLink({ purpose });
    expect((await put(link.upload_url, PNG)).status).toBe(200);
    return link;
  }

  it('uploads and deletes over GraphQL, and a sandbox reset removes the files with their bytes', async () => {
    const created = await gql(`mutation($input: CreateFileUploadInput!) { createFileUpload(input: $input) { id uploadUrl expiresAt file { state } } }`, {
      input: { purpose: 'return_photo', filename: 'odometer.pdf', contentType: 'application/pdf', sizeBytes: PDF.length },
    });
    expect(created.errors).toBeUndefined();
    expect(created.data.createFileUpload.file).toEqual({ state: 'pending_upload' });
    expect((await put(created.data.createFileUpload.uploadUrl, PDF)).status).toBe(200);
    const removed = await gql(`mutation($id: ID!) { deleteFile(id: $id) { id state downloadUrl } }`, { id: created.data.createFileUpload.id });
    expect(removed.data.deleteFile).toEqual({ id: created.data.createFileUpload.id, state: 'deleted', downloadUrl: null });

    expect(await stored(created.data.createFileUpload.id)).toEqual([]);

    const kept = await uploaded();
    expect((await stored(kept.id)).length).toBe(1);
    const reset = await api.post('/v1/test/reset');
    expect(reset.status).toBe(200);
    expect(reset.body.deleted.files).toBeGreaterThan(0);
    expect((await api.get(`/v1/files/${kept.id}`)).status).toBe(404);
    expect(await stored(kept.id)).toEqual([]);
    vehicleId = (await createVehicle(api)).id;
  });
  it.runIf(storage === 's3')('rides out a bucket that slows down once, and answers 502 with nothing stored when the bucket keeps refusing', async () => {
    s3!.failNext('PUT');
    const retried = await uploaded();
    expect(await stored(retried.id)).toHaveLength(1);

    const link = await uploadLink();
    for (let i = 0; i < 3; i++) s3!.failNext('PUT');
    const refused = await put(link.upload_url, PNG);
    expect(refused.status).toBe(502);
    expect(refused.body.error).toMatchObject({ type: 'integration_error', code: 'file_storage_unavailable' });
    expect((await api.get(`/v1/files/${link.id}`)).body.state).toBe('pending_upload');
    expect(await stored(link.id)).toEqual([]);
    // The same link works once the bucket is back.
    expect((await put(link.upload_url, PNG)).status).toBe(200);

    // The stand-in checks SigV4 in full: a client with the wrong secret is refused.
    const { S3Client, HeadObjectCommand } = await import('@aws-sdk/client-s3');
    const forger = new S3Client({ region: S3.region, endpoint: s3!.url, forcePathStyle: true, credentials: { accessKeyId: S3.accessKeyId, secretAccessKey: 'not-the-secret' }, maxAttempts: 1 });
    await expect(forger.send(new HeadObjectCommand({ Bucket: S3.bucket, Key: (await stored(link.id))[0] }))).rejects.toMatchObject({ $metadata: { httpStatusCode: 403 } });

    for (let i = 0; i < 3; i++) s3!.failNext('GET');
    const download = await fetch((await api.get(`/v1/files/${link.id}`)).body.download_url);
    expect(download.status).toBe(502);
    expect(((await download.json()) as any).error.code).toBe('file_storage_unavailable');
  });
});
