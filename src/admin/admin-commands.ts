import { parseArgs } from 'node:util';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { createApiKey, revokeApiKey } from '../platform/api-keys.ts';
import { ALL_PERMISSIONS } from '../domain/access/permissions.ts';
import { createBusiness } from '../platform/businesses.ts';
import { addTeamMember } from '../platform/team-members.ts';
import { createSignInLink, signInUrl } from '../ops/sessions.ts';
import { TeamRole } from '../generated/prisma/enums.ts';
import { DomainError } from '../domain/shared/errors.ts';
import { exportAuditRecords, ExportFileExistsError } from '../platform/audit-export.ts';

/** Bad arguments: the CLI prints the message (a line or two, no stack) and exits 2. */
export class AdminUsageError extends Error {
  override name = 'AdminUsageError';
}

type Flag = 'name' | 'currency' | 'business' | 'key' | 'mode' | 'kind' | 'permissions' | 'member' | 'email' | 'role' | 'out' | 'since' | 'before' | 'json';

const ROLES = Object.values(TeamRole) as string[];

const FLAG_HELP: Record<Flag, [syntax: string, help: string]> = {
  name: ['--name <name>', 'name of the business or member (quote it when it has spaces)'],
  currency: ['--currency <code>', 'currency of the business (default usd)'],
  business: ['--business <biz_id>', 'the business (ids from `business list`)'],
  key: ['--key <key_id>', 'the key to revoke (ids from `key list`)'],
  mode: ['--mode test|live', 'sandbox (test) or production (live): of a key, or of an ops screen session'],
  kind: ['--kind secret|publishable', 'secret key, or publishable key for browsers and apps'],
  permissions: ['--permissions <list>', 'comma-separated permissions (below); omit for a key with all of them'],
  member: ['--member <mem_id>', "bind the key to a team member: it acts with the member's role and dies with the member"],
  email: ['--email <address>', "the member's email"],
  role: ['--role <role>', `the member's role: ${ROLES.join(', ')} (default owner)`],
  out: ['--out <file>', 'the file to write (a new one: never overwritten)'],
  since: ['--since <time>', 'only what was created at or after this time (2026-01-01 or 2026-01-01T00:00:00Z)'],
  before: ['--before <time>', 'only what was created before this time (same forms)'],
  json: ['--json', 'print JSON instead of text'],
};

interface CommandSpec {
  required: Flag[];
  optional: Flag[];
  summary: string;
}

const COMMANDS: Record<string, CommandSpec> = {
  'business create': {
    required: ['name'],
    optional: ['currency', 'json'],
    summary: 'create a business and its four keys (test and live, secret and publishable), shown once',
  },
  'business list': { required: [], optional: ['json'], summary: 'list the businesses' },
  'key list': { required: ['business'], optional: ['json'], summary: 'list the keys of a business (redacted)' },
  'key create': {
    required: ['business', 'mode', 'kind'],
    optional: ['permissions', 'member', 'json'],
    summary: 'create another key; its secret is shown once (--member: a secret key acting with that member\'s role)',
  },
  'key revoke': { required: ['business', 'key'], optional: ['json'], summary: 'revoke a key' },
  'member create': {
    required: ['business', 'email'],
    optional: ['name', 'role', 'json'],
    summary: "add a team member directly, such as the business's first owner (later members are invited through the API)",
  },
  'member list': { required: ['business'], optional: ['json'], summary: 'list the team members of a business' },
  'member sign-in-link': {
    required: ['business', 'member'],
    optional: ['mode', 'json'],
    summary: 'print a one-time link that signs the member in to the ops screen (/ops) for 15 minutes, acting with their role (--mode: test by default)',
  },
  'app connections': {
    required: ['business'],
    optional: ['json'],
    summary: 'list the OAuth apps connected to a business, in both modes, with their scopes (ended connections too)',
  },
  'audit export': {
    required: ['business', 'mode', 'out'],
    optional: ['since', 'before', 'json'],
    summary: 'write the audit records of a business in one environment to a new file as JSON lines, oldest first, e.g. those AUDIT_RETENTION_DAYS is about to delete',
  },
};

const COMMAND_NAMES = Object.keys(COMMANDS);
const NOUNS = [...new Set(COMMAND_NAMES.map((c) => c.split(' ')[0]))];

function commandUsage(command: string): string {
  const spec = COMMANDS[command];
  const flags = [
    ...spec.required.map((f) => FLAG_HELP[f][0]),
    ...spec.optional.map((f) => `[${FLAG_HELP[f][0]}]`),
  ];
  return [command, ...flags].join(' ');
}

/** The permission names, from ALL_PERMISSIONS, two groups (read and write) to a line. */
function permissionLines(indent = '  '): string[] {
  const groups = new Map<string, string[]>();
  for (const p of ALL_PERMISSIONS) {
    const group = p.slice(0, p.indexOf(':'));
    groups.set(group, [...(groups.get(group) ?? []), p]);
  }
  const width = Math.max(...ALL_PERMISSIONS.map((p) => p.length)) + 2;
  const cells = [...groups.values()].map((names) => names.map((n) => n.padEnd(width)).join(''));
  const lines: string[] = [];
  for (let i = 0; i < cells.length; i += 2) lines.push(`${indent}${cells.slice(i, i + 2).join('')}`.trimEnd());
  return lines;
}

export const ADMIN_USAGE = [
  'usage: npm run admin -- <command> [flags]',
  '',
  'Creates businesses, their API keys and first team members (the API has no operation for that),',
  'and exports audit records a business keeps longer than the platform does.',
  '',
  'commands:',
  ...COMMAND_NAMES.flatMap((c) => [`  ${commandUsage(c)}`, `      ${COMMANDS[c].summary}`]),
  '',
  'flags:',
  ...Object.values(FLAG_HELP).map(([syntax, help]) => `  ${syntax.padEnd(28)}${help}`),
  `  ${'-h, --help'.padEnd(28)}show this help`,
  '',
  'permissions (for --permissions, comma-separated):',
  ...permissionLines(),
  '',
  'environment: DATABASE_URL (PostgreSQL; otherwise the embedded database in DATA_DIR, default ./data).',
  'The embedded database can only be used while no server holds it.',
  'exit codes: 0 done, 1 database unavailable or unexpected error, 2 bad arguments, 3 embedded database in use.',
].join('\n');

const SEE_HELP = 'run `npm run admin -- --help` for the commands and flags';

type Options = {
  name?: string; business?: string; key?: string; mode?: string; kind?: string; permissions?: string; member?: string; email?: string; role?: string; currency?: string;
  out?: string; since?: string; before?: string; json?: boolean;
};

export type ParsedAdminArgs =
  | { help: true }
  | { help: false; command: string; positionals: string[]; options: Options; json: boolean };

/**
 * The command line of `npm run admin`: help, or a checked command. Throws AdminUsageError
 * (one or two lines) for anything wrong, before the database is opened.
 */
export function parseAdminArgs(args: string[]): ParsedAdminArgs {
  const flagArgs = args.includes('--') ? args.slice(0, args.indexOf('--')) : args;
  if (args.length === 0 || args[0] === 'help' || flagArgs.includes('--help') || flagArgs.includes('-h')) return { help: true };
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: 'string' },
        business: { type: 'string' },
        key: { type: 'string' },
        mode: { type: 'string' },
        kind: { type: 'string' },
        permissions: { type: 'string' },
        member: { type: 'string' },
        email: { type: 'string' },
        role: { type: 'string' },
        currency: { type: 'string' },
        out: { type: 'string' },
        since: { type: 'string' },
        before: { type: 'string' },
        json: { type: 'boolean' },
      },
    });
  } catch (err) {
    throw parseArgsError(err);
  }
  const options = parsed.values as Options;
  const command = checkCommand(parsed.positionals);
  checkOptions(command, options);
  return { help: false, command, positionals: parsed.positionals, options, json: options.json === true };
}

/** node:util parseArgs's errors (ERR_PARSE_ARGS_*), in our words. */
function parseArgsError(err: unknown): Error {
  const e = err as { code?: unknown; message?: unknown };
  if (typeof e?.code !== 'string' || !e.code.startsWith('ERR_PARSE_ARGS_')) return err as Error;
  const message = String(e.message);
  const flag = /'(-{1,2}[^' =<]+)/.exec(message)?.[1] ?? '';
  if (e.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
    const known = Object.keys(FLAG_HELP).map((f) => `--${f}`);
    const suggestion = closest(flag.replace(/^-+/, '--'), known);
    return new AdminUsageError(`admin: unknown flag ${flag}${suggestion ? ` (did you mean ${suggestion}?)` : ''}\n${SEE_HELP}`);
  }
  if (e.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') {
    if (/does not take an argument/.test(message)) return new AdminUsageError(`admin: ${flag} takes no value\n${SEE_HELP}`);
    const syntax = FLAG_HELP[flag.replace(/^-+/, '') as Flag]?.[0] ?? `${flag} <value>`;
    return new AdminUsageError(`admin: ${flag} needs a value, as in ${syntax}\n${SEE_HELP}`);
  }
  return new AdminUsageError(`admin: ${message.split('\n')[0]}\n${SEE_HELP}`);
}

function checkCommand(positionals: string[]): string {
  const [noun, verb, ...extra] = positionals;
  if (verb === undefined && NOUNS.includes(noun)) {
    const verbs = COMMAND_NAMES.filter((c) => c.startsWith(`${noun} `));
    throw new AdminUsageError(`admin: "${noun}" needs a subcommand: ${verbs.join(', ')}\n${SEE_HELP}`);
  }
  const command = positionals.slice(0, 2).join(' ');
  if (!COMMANDS[command]) {
    const suggestion = closest(command, COMMAND_NAMES);
    throw new AdminUsageError(
      `admin: unknown command "${command}"${suggestion ? ` (did you mean "${suggestion}"?)` : ''}\ncommands: ${COMMAND_NAMES.join(', ')}; ${SEE_HELP}`,
    );
  }
  if (extra.length > 0) {
    throw new AdminUsageError(`admin: unexpected argument "${extra[0]}" after "${command}" (quote values with spaces)\nusage: npm run admin -- ${commandUsage(command)}`);
  }
  return command;
}

/** Flags of the command present, no others, and their values valid. */
function checkOptions(command: string, options: Options): void {
  const spec = COMMANDS[command];
  const usage = `usage: npm run admin -- ${commandUsage(command)}`;
  const given = (Object.keys(options) as Flag[]).filter((f) => options[f] !== undefined);
  const foreign = given.filter((f) => !spec.required.includes(f) && !spec.optional.includes(f));
  if (foreign.length > 0) throw new AdminUsageError(`admin: ${command} does not take ${foreign.map((f) => `--${f}`).join(', ')}\n${usage}`);
  const missing = spec.required.filter((f) => !options[f]);
  if (missing.length > 0) throw new AdminUsageError(`admin: ${command} needs ${listOf(missing.map((f) => `--${f}`))}\n${usage}`);
  if (options.mode !== undefined && options.mode !== 'test' && options.mode !== 'live') {
    throw new AdminUsageError(`admin: --mode must be test or live, not "${options.mode}"\n${usage}`);
  }
  if (options.kind !== undefined && options.kind !== 'secret' && options.kind !== 'publishable') {
    throw new AdminUsageError(`admin: --kind must be secret or publishable, not "${options.kind}"\n${usage}`);
  }
  if (options.permissions !== undefined) checkPermissions(splitPermissions(options.permissions));
  if (options.email !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(options.email.trim())) {
    throw new AdminUsageError(`admin: --email must be an email address, not "${options.email}"\n${usage}`);
  }
  if (options.role !== undefined && !ROLES.includes(options.role)) {
    throw new AdminUsageError(`admin: --role must be one of ${ROLES.join(', ')}, not "${options.role}"\n${usage}`);
  }
  if (options.member !== undefined && options.permissions !== undefined) {
    throw new AdminUsageError(`admin: a key bound to a member acts with the member's role: give --member or --permissions, not both\n${usage}`);
  }
  if (command === 'key create' && options.member !== undefined && options.kind !== 'secret') {
    throw new AdminUsageError(`admin: only a secret key can be bound to a member (--kind secret)\n${usage}`);
  }
  const since = options.since === undefined ? undefined : parseTime('since', options.since, usage);
  const before = options.before === undefined ? undefined : parseTime('before', options.before, usage);
  if (since && before && since >= before) throw new AdminUsageError(`admin: --since must be before --before\n${usage}`);
}

/** A day (its start, UTC) or a time with its UTC offset, as the API takes them. */
function parseTime(flag: 'since' | 'before', value: string, usage: string): Date {
  const day = /^\d{4}-\d{2}-\d{2}$/.test(value);
  const time = day ? new Date(`${value}T00:00:00Z`) : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(value) ? new Date(value) : null;
  if (!time || Number.isNaN(time.getTime())) {
    throw new AdminUsageError(`admin: --${flag} must be a day (2026-01-01) or a time with its offset (2026-01-01T00:00:00Z), not "${value}"\n${usage}`);
  }
  return time;
}

function splitPermissions(list: string): string[] {
  const permissions = list.split(',').map((p) => p.trim()).filter(Boolean);
  // An empty list would make a key with every permission: surely not what was meant.
  if (permissions.length === 0) throw new AdminUsageError('admin: --permissions is empty; omit it for a key with all permissions, or name some:\n' + permissionLines().join('\n'));
  return permissions;
}

function checkPermissions(permissions: string[]): void {
  const valid = ALL_PERMISSIONS as readonly string[];
  const unknown = permissions.filter((p) => !valid.includes(p));
  if (unknown.length > 0) throw unknownPermissions(unknown);
}

function unknownPermissions(unknown: string[]): AdminUsageError {
  const hints = unknown.map((p) => closest(p, ALL_PERMISSIONS)).filter((s): s is string => s !== undefined);
  const hint = hints.length > 0 ? ` (did you mean ${hints.join(', ')}?)` : '';
  return new AdminUsageError(
    `admin: unknown permission${unknown.length > 1 ? 's' : ''} ${unknown.map((p) => `"${p}"`).join(', ')}${hint}; the valid ones are:\n${permissionLines().join('\n')}`,
  );
}

/** The admin commands, apart from argument parsing so that tests can call them. */
export async function runAdminCommand(prisma: PrismaClient, positionals: string[], options: Options, where: { baseUrl?: string } = {}): Promise<unknown> {
  // The same checks as parseAdminArgs, for callers that come here directly.
  const command = checkCommand(positionals);
  checkOptions(command, options);
  switch (command) {
    case 'business create':
      return createBusiness(prisma, { name: options.name!, currency: options.currency });
    case 'business list':
      return (await prisma.business.findMany({ orderBy: { id: 'asc' } })).map((b) => ({ id: b.id, name: b.name, created_at: b.createdAt.toISOString() }));
    case 'key list': {
      const businessId = await existingBusiness(prisma, options.business!);
      const keys = await prisma.apiKey.findMany({ where: { businessId }, orderBy: { id: 'asc' } });
      return keys.map((k) => ({
        id: k.id, key: k.redacted, mode: k.livemode ? 'live' : 'test', kind: k.kind, name: k.name,
        permissions: k.memberId ? `member ${k.memberId}` : k.permissions.join(',') || 'all', revoked: k.revokedAt !== null, created_at: k.createdAt.toISOString(),
      }));
    }
    case 'key create': {
      const businessId = await existingBusiness(prisma, options.business!);
      const mode = options.mode as 'test' | 'live';
      const kind = options.kind as 'secret' | 'publishable';
      const permissions = options.permissions === undefined ? [] : splitPermissions(options.permissions);
      const memberId = options.member === undefined ? undefined : await existingMember(prisma, businessId, options.member);
      try {
        const created = await createApiKey(prisma, { businessId, livemode: mode === 'live', kind, permissions, memberId });
        return { id: created.id, key: created.key, mode, kind, ...(memberId ? { member: memberId } : { permissions: permissions.join(',') || 'all' }) };
      } catch (err) {
        // Checked above already; should the domain's rule ever differ, still a usage error.
        if (err instanceof DomainError && err.type === 'validation_error') {
          const list = err.param === 'permissions' ? `; the valid ones are:\n${permissionLines().join('\n')}` : '';
          throw new AdminUsageError(`admin: ${err.message}${list}`);
        }
        throw err;
      }
    }
    case 'key revoke': {
      const businessId = await existingBusiness(prisma, options.business!);
      const revoked = await revokeApiKey(prisma, businessId, options.key!);
      if (!revoked) {
        throw new AdminUsageError(`admin: business ${businessId} has no active key ${options.key}\nsee its keys with: npm run admin -- key list --business ${businessId}`);
      }
      return { id: options.key, revoked: true };
    }
    case 'member create': {
      const businessId = await existingBusiness(prisma, options.business!);
      const member = await addTeamMember(prisma, { businessId, email: options.email!, name: options.name, role: (options.role ?? 'owner') as TeamRole });
      if (!member) throw new AdminUsageError(`admin: ${options.email} is already a member of ${businessId}\nsee the team with: npm run admin -- member list --business ${businessId}`);
      return { id: member.id, email: member.email, name: member.name, role: member.role };
    }
    case 'member list': {
      const businessId = await existingBusiness(prisma, options.business!);
      const members = await prisma.teamMember.findMany({ where: { businessId }, orderBy: { id: 'asc' } });
      return members.map((m) => ({ id: m.id, email: m.email, name: m.name, role: m.role, created_at: m.createdAt.toISOString() }));
    }
    case 'member sign-in-link': {
      const businessId = await existingBusiness(prisma, options.business!);
      const memberId = await existingMember(prisma, businessId, options.member!);
      const mode = (options.mode ?? 'test') as 'test' | 'live';
      const link = await createSignInLink(prisma, { businessId, memberId, livemode: mode === 'live' });
      return { url: signInUrl(where.baseUrl ?? 'http://localhost:3000', link.token), member: memberId, mode, expires_at: link.expiresAt.toISOString() };
    }
    case 'app connections': {
      const businessId = await existingBusiness(prisma, options.business!);
      const connections = await prisma.connectedApp.findMany({ where: { businessId }, orderBy: { id: 'asc' }, include: { app: { select: { name: true } } } });
      return connections.map((c) => ({
        id: c.id, app: c.appId, app_name: c.app.name, mode: c.livemode ? 'live' : 'test', scopes: c.scopes.join(','), approved_by: c.memberId,
        state: c.revokedAt ? 'disconnected' : 'connected', created_at: c.createdAt.toISOString(),
      }));
    }
    case 'audit export': {
      const businessId = await existingBusiness(prisma, options.business!);
      const mode = options.mode as 'test' | 'live';
      const usage = `usage: npm run admin -- ${commandUsage(command)}`;
      const since = options.since === undefined ? undefined : parseTime('since', options.since, usage);
      const before = options.before === undefined ? undefined : parseTime('before', options.before, usage);
      const file = options.out!;
      try {
        // Loaded here: the tenant scope loads Prisma's runtime, which help and bad arguments need not wait for.
        const { tenantDbFactory } = await import('../db/tenant-db.ts');
        const records = await exportAuditRecords(tenantDbFactory(prisma)({ businessId, livemode: mode === 'live' }), { since, before }, file);
        return { file, business: businessId, mode, records, since: since?.toISOString() ?? 'the oldest', before: before?.toISOString() ?? 'now' };
      } catch (err) {
        if (err instanceof ExportFileExistsError) throw new AdminUsageError(`admin: ${err.message}; name a new one with --out`);
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EEXIST') throw new AdminUsageError(`admin: ${file}.partial exists: another export of ${file} is running, or one stopped before its end (remove ${file}.partial then)`);
        if (code === 'ENOENT' || code === 'EACCES' || code === 'EISDIR' || code === 'ENOTDIR') throw new AdminUsageError(`admin: cannot write ${file}: ${(err as Error).message}`);
        throw err;
      }
    }
    default:
      throw new AdminUsageError(`admin: unknown command "${command}"\n${SEE_HELP}`);
  }
}

async function existingBusiness(prisma: PrismaClient, businessId: string): Promise<string> {
  if (await prisma.business.findUnique({ where: { id: businessId }, select: { id: true } })) return businessId;
  throw new AdminUsageError(`admin: no business ${businessId}\nsee the businesses with: npm run admin -- business list`);
}

async function existingMember(prisma: PrismaClient, businessId: string, memberId: string): Promise<string> {
  if (await prisma.teamMember.findFirst({ where: { id: memberId, businessId }, select: { id: true } })) return memberId;
  throw new AdminUsageError(`admin: business ${businessId} has no member ${memberId}\nsee its team with: npm run admin -- member list --business ${businessId}`);
}

// ------------------------------------------------------------------ helpers

function listOf(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items[items.length - 1]}`;
}

/** The candidate within a small edit distance of `input`, for "did you mean". */
function closest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Math.max(2, Math.floor(input.length / 4)) + 1;
  for (const c of candidates) {
    const d = editDistance(input.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
    }
  }
  return best === input ? undefined : best;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
